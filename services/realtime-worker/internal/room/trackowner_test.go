package room

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
)

// A track or sender the bot's connection has not seen yet is looked up
// at the server, once; what the server does not know either is not asked
// about again right away, and a failing server is reported.
func TestRosterAsksTheServerAboutUnseenParticipants(t *testing.T) {
	calls := 0
	var fail error
	r := newRoster(func(context.Context) ([]*livekit.ParticipantInfo, error) {
		calls++
		if fail != nil {
			return nil, fail
		}
		return []*livekit.ParticipantInfo{
			{Identity: "kim", Name: "김민수", Tracks: []*livekit.TrackInfo{{Sid: "TR_kim_mic"}}},
			{Identity: "stt-agent", Name: "Transcriber"},
		}, nil
	})
	r.grace = 0 // TestRosterWaitsForATrackPublishedJustBefore
	p, ok, err := r.trackOwner(nil, "TR_kim_mic")
	if err != nil || !ok || p.Identity != "kim" || p.Name != "김민수" {
		t.Fatalf("owner of TR_kim_mic = %+v, %v, %v; want kim", p, ok, err)
	}
	if sp, err := r.participant(nil, "stt-agent"); err != nil || sp.Name != "Transcriber" {
		t.Fatalf("sender stt-agent = %+v, %v", sp, err)
	}
	if calls != 1 {
		t.Fatalf("%d server calls, want 1 (the second answer comes from the first call)", calls)
	}
	if _, ok, _ := r.trackOwner(nil, "TR_gone"); ok {
		t.Fatal("a track the server does not know has an owner")
	}
	if _, ok, _ := r.trackOwner(nil, "TR_gone"); ok || calls != 2 {
		t.Fatalf("unknown track asked about %d times in all, want once more than before", calls)
	}
	fail = errors.New("connection refused")
	if _, ok, err := r.trackOwner(nil, "TR_new"); ok || err == nil {
		t.Fatalf("server down: ok=%v err=%v, want the error reported", ok, err)
	}
	before := calls
	if _, ok, err := r.trackOwner(nil, "TR_new"); ok || err != nil || calls != before {
		t.Fatalf("an unreachable server was asked again at once (calls %d -> %d, err %v)", before, calls, err)
	}
	if p, ok, _ := r.trackOwner(nil, "TR_kim_mic"); !ok || p.Identity != "kim" {
		t.Fatal("a known owner was forgotten while the server is down")
	}
}

// A track the server learns about only after its first transcript
// arrived is waited for: the segment gets the track's owner, not its
// sender. A track that never appears is given up after the grace, and the
// next segment of it does not wait again.
func TestRosterWaitsForATrackPublishedJustBefore(t *testing.T) {
	calls := 0
	r := newRoster(func(context.Context) ([]*livekit.ParticipantInfo, error) {
		calls++
		ps := []*livekit.ParticipantInfo{{Identity: "stt-agent", Name: "Transcriber"}}
		if calls >= 3 {
			ps = append(ps, &livekit.ParticipantInfo{Identity: "kim", Name: "김민수", Tracks: []*livekit.TrackInfo{{Sid: "TR_kim_mic"}}})
		}
		return ps, nil
	})
	r.grace, r.poll = 10*time.Second, time.Millisecond
	p, ok, err := r.trackOwner(nil, "TR_kim_mic")
	if err != nil || !ok || p.Identity != "kim" {
		t.Fatalf("owner = %+v, %v, %v; want kim once the server lists the track", p, ok, err)
	}
	if calls != 3 {
		t.Fatalf("%d server calls, want 3 (asked until the track appeared)", calls)
	}
	r.grace = 20 * time.Millisecond
	start := time.Now()
	if _, ok, _ := r.trackOwner(nil, "TR_never"); ok {
		t.Fatal("a track nobody published has an owner")
	}
	if waited := time.Since(start); waited < r.grace {
		t.Fatalf("gave up after %v, before the grace of %v", waited, r.grace)
	}
	before := calls
	if _, ok, _ := r.trackOwner(nil, "TR_never"); ok || calls != before {
		t.Fatalf("the next segment of a track given up on asked the server again (%d -> %d calls)", before, calls)
	}
}
