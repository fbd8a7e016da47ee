// Package stt turns one utterance of 16 kHz mono PCM into text. A
// Provider is chosen by MITHUB_STT_PROVIDER: openai (any server with
// OpenAI's POST /v1/audio/transcriptions) or pocketsphinx (offline,
// English, through libpocketsphinx).
package stt

import (
	"context"
	"errors"
)

// Provider names.
const (
	ProviderOpenAI       = "openai"
	ProviderPocketSphinx = "pocketsphinx"
)

// Request is one utterance to transcribe.
type Request struct {
	// PCM is 16 kHz mono signed 16-bit audio.
	PCM []int16
	// Language is a hint (ISO 639-1, "en"); empty lets the provider guess.
	Language string
	// ID names the utterance in logs.
	ID string
}

// Result is what was said. Text is empty when nothing was recognised.
type Result struct {
	Text string
	// Confidence is between 0 and 1.
	Confidence float32
	// Language is the tag of the language heard, or the hint.
	Language string
}

// Provider transcribes utterances. It is safe for concurrent use.
type Provider interface {
	Name() string
	Transcribe(ctx context.Context, req Request) (Result, error)
	Close() error
}

// ErrPermanent marks a failure that retrying the same utterance cannot
// fix (a refused request, audio the recogniser rejects).
var ErrPermanent = errors.New("stt: permanent failure")

// Streamer is a Provider that can decode an utterance while it is spoken,
// so that little is left to do when it ends.
type Streamer interface {
	Provider
	// Begin starts an utterance; ok is false when no decoder is free now
	// (the caller then transcribes the whole utterance when it ends).
	Begin() (s Stream, ok bool, err error)
}

// Stream is one utterance being decoded. It is used by one goroutine at a
// time; End or Abort releases it.
type Stream interface {
	Write(pcm []int16) error
	End() (Result, error)
	Abort()
}
