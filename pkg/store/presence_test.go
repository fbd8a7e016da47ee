package store_test

import (
	"errors"
	"testing"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

func TestPresenceLastLeft(t *testing.T) {
	s := storetest.New(t)
	ctx := t.Context()
	tn, m := newMeeting(t, s, "acme")
	other, _ := newMeeting(t, s, "globex")

	if _, ok, err := s.LastLeft(ctx, tn.ID, m.ID, "kim"); err != nil || ok {
		t.Fatalf("before any event: ok=%v err=%v", ok, err)
	}
	for _, e := range []store.PresenceEvent{
		{ParticipantID: "kim", Kind: store.PresenceJoined, AtMS: 0},
		{ParticipantID: "kim", Kind: store.PresenceLeft, AtMS: 60_000},
		{ParticipantID: "kim", Kind: store.PresenceJoined, AtMS: 90_000},
		{ParticipantID: "kim", Kind: store.PresenceLeft, AtMS: 300_000},
		{ParticipantID: "박지성", Kind: store.PresenceLeft, AtMS: 500_000},
	} {
		if created, err := s.RecordPresence(ctx, tn.ID, m.ID, e); err != nil || !created {
			t.Fatalf("record %+v: created=%v err=%v", e, created, err)
		}
	}
	// A re-sent event is stored once.
	if created, err := s.RecordPresence(ctx, tn.ID, m.ID, store.PresenceEvent{ParticipantID: "kim", Kind: store.PresenceLeft, AtMS: 300_000}); err != nil || created {
		t.Fatalf("re-sent event: created=%v err=%v", created, err)
	}
	if at, ok, err := s.LastLeft(ctx, tn.ID, m.ID, "kim"); err != nil || !ok || at != 300_000 {
		t.Fatalf("kim last left at %d ok=%v err=%v, want 300000", at, ok, err)
	}
	evs, err := s.PresenceOf(ctx, tn.ID, m.ID, "kim")
	if err != nil || len(evs) != 4 || evs[0].Kind != store.PresenceJoined || evs[1].AtMS != 60_000 || evs[3].Kind != store.PresenceLeft || evs[3].AtMS != 300_000 {
		t.Fatalf("kim's presence %+v err=%v, want 4 events in time order", evs, err)
	}
	if evs, err := s.PresenceOf(ctx, other.ID, m.ID, "kim"); err != nil || len(evs) != 0 {
		t.Fatalf("another tenant reads kim's presence: %+v err=%v", evs, err)
	}
	// Another tenant neither writes into nor reads from the meeting.
	if _, err := s.RecordPresence(ctx, other.ID, m.ID, store.PresenceEvent{ParticipantID: "x", Kind: store.PresenceLeft, AtMS: 1}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("other tenant's write: %v", err)
	}
	if _, ok, err := s.LastLeft(ctx, other.ID, m.ID, "kim"); err != nil || ok {
		t.Fatalf("other tenant read kim's presence: ok=%v err=%v", ok, err)
	}
	for _, bad := range []store.PresenceEvent{
		{ParticipantID: "", Kind: store.PresenceLeft},
		{ParticipantID: "kim", Kind: "away"},
		{ParticipantID: "kim", Kind: store.PresenceLeft, AtMS: -1},
	} {
		if _, err := s.RecordPresence(ctx, tn.ID, m.ID, bad); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("record %+v: %v, want ErrInvalid", bad, err)
		}
	}
}
