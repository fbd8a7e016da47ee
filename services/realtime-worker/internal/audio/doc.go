// Package audio turns a participant's Opus microphone track into 16 kHz
// mono PCM and cuts it into utterances.
//
// The Opus codec is libopus through cgo (Debian: libopus-dev to build,
// libopus0 to run); a build without cgo has no decoder and reports so.
// The voice-activity detector is energy-based with a hangover, which is
// enough for a microphone track: WebRTC clients already suppress noise,
// and LiveKit forwards silence as DTX packets or none at all.
package audio

// SampleRate is the rate of the PCM this package produces and the speech
// recognisers take: 16 kHz mono, signed 16-bit.
const SampleRate = 16000

// OpusClockRate is the RTP clock of Opus, whatever its decoded rate.
const OpusClockRate = 48000
