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

// send hands e to the session goroutine, or gives up when stop is closed.
// Events of a connection stop with it (stop: the connection's closed
// channel), so a closed connection reports nothing more.
func send(events chan<- event, e event, stop <-chan struct{}) {
	select {
	case events <- e:
	case <-stop:
	}
}

// sendHeard hands a heard segment to the session goroutine. A segment
// outlives the connection it came on: once that connection is closed, the
// session's next connection stores it. Only the end of the session (done)
// drops it. While there is room in events it is never dropped, even when
// done is closed too.
func sendHeard(events chan<- event, e event, done <-chan struct{}) {
	select {
	case events <- e:
		return
	default:
	}
	select {
	case events <- e:
	case <-done:
	}
}
