package room

import (
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
)

// event is what SDK callbacks send to the session goroutine.
type event interface{ isEvent() }

// streamEvent is a complete lk.transcription text stream.
type streamEvent struct {
	streamID string
	attrs    map[string]string
	text     string
	sender   string
}

// transcriptionEvent is a LiveKit transcription packet.
type transcriptionEvent struct {
	identity string
	name     string
	segments []*lksdk.TranscriptionSegment
}

// segmentEvent is a segment from the replay source.
type segmentEvent struct{ seg transcript.Segment }

// disconnectedEvent: the connection ended for good.
type disconnectedEvent struct {
	conn   int
	reason lksdk.DisconnectionReason
}

// reconnectingEvent: the connection was lost (the SDK is trying to get
// it back) or never came up.
type reconnectingEvent struct {
	conn  int
	cause string
}

// presenceEvent: a participant joined or left the room.
type presenceEvent struct {
	identity string
	kind     string
	at       time.Time
}

// threadEvent: an answer created an ask thread for a speaker.
type threadEvent struct{ speaker, thread string }

func (threadEvent) isEvent()        {}
func (presenceEvent) isEvent()      {}
func (streamEvent) isEvent()        {}
func (transcriptionEvent) isEvent() {}
func (segmentEvent) isEvent()       {}
func (disconnectedEvent) isEvent()  {}
func (reconnectingEvent) isEvent()  {}
