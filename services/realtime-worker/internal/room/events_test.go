package room

import (
	"testing"
	"time"
)

// A heard segment that arrives after its connection closed still reaches
// the session, even though its connection's stop channel is closed.
func TestHeardSegmentsOutliveTheirConnection(t *testing.T) {
	closed := make(chan struct{})
	close(closed)
	events := make(chan event, 100)
	for range 50 {
		sendHeard(events, streamEvent{streamID: "s"}, closed)
	}
	if len(events) != 50 {
		t.Errorf("%d of 50 heard segments reached the session after their connection closed", len(events))
	}
}

// hangGuard only keeps a broken sender from hanging the test binary; it
// is no bound on how fast a sender returns.
const hangGuard = 10 * time.Second

type sender func(events chan<- event, e event, stop <-chan struct{})

// Neither sender blocks its SDK goroutine once nobody will read: send
// when its connection closed, sendHeard when the session ended. Until
// then both wait for the session to take the event rather than drop it.
func TestSendersGiveUpWhenNobodyReads(t *testing.T) {
	tests := []struct {
		name string
		send sender
	}{
		{"send", send},
		{"sendHeard", sendHeard},
	}
	for _, tt := range tests {
		t.Run(tt.name+" gives up once stop is closed", func(t *testing.T) {
			stop := make(chan struct{})
			close(stop)
			events := make(chan event) // nobody reads
			returned := runSender(tt.send, events, presenceEvent{identity: "p"}, stop)
			select {
			case <-returned:
			case <-time.After(hangGuard):
				t.Fatalf("%s still blocked %s after stop was closed, with nobody reading", tt.name, hangGuard)
			}
		})
		t.Run(tt.name+" waits for the session while stop is open", func(t *testing.T) {
			stop := make(chan struct{})
			defer close(stop)
			events := make(chan event, 1)
			events <- presenceEvent{identity: "queued"} // the session is behind: no room
			want := presenceEvent{identity: "p"}
			returned := runSender(tt.send, events, want, stop)
			// A sender that drops the event returns at once. The window
			// can only let a dropping sender through on a stalled
			// machine; it cannot fail a waiting one.
			select {
			case <-returned:
				t.Fatalf("%s returned with no room and stop open: the event was dropped", tt.name)
			case <-time.After(200 * time.Millisecond):
			}
			<-events // the session catches up
			select {
			case <-returned:
			case <-time.After(hangGuard):
				t.Fatalf("%s still blocked %s after the session made room", tt.name, hangGuard)
			}
			if len(events) != 1 {
				t.Fatalf("%d events queued after the sender returned, want its one", len(events))
			}
			if got := <-events; got != want {
				t.Fatalf("session got %+v, want %+v", got, want)
			}
		})
	}
}

// runSender runs s in its own goroutine, as an SDK callback would, and
// returns a channel closed when s returns.
func runSender(s sender, events chan<- event, e event, stop <-chan struct{}) <-chan struct{} {
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		s(events, e, stop)
	}()
	return returned
}
