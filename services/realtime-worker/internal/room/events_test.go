package room

import (
	"testing"
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

// Neither sender blocks its SDK goroutine once nobody will read: send
// when its connection closed, sendHeard when the session ended.
func TestSendersGiveUpWhenNobodyReads(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	events := make(chan event) // nobody reads
	send(events, presenceEvent{identity: "p"}, stop)
	sendHeard(events, streamEvent{streamID: "s"}, stop)
}
