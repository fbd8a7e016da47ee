package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

func TestActiveMeetingForRoomCreatesOnceUnderRace(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	var (
		wg      sync.WaitGroup
		ids     = make([]string, n)
		created = make([]bool, n)
		errs    = make([]error, n)
	)
	for i := range n {
		wg.Go(func() {
			m, c, err := s.ActiveMeetingForRoom(ctx, tn.ID, "주간-회의", store.NewMeeting{Title: "weekly", Language: "ko"})
			ids[i], created[i], errs[i] = m.ID, c, err
		})
	}
	wg.Wait()
	nCreated := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Errorf("call %d got meeting %s, call 0 got %s", i, ids[i], ids[0])
		}
		if created[i] {
			nCreated++
		}
	}
	if nCreated != 1 {
		t.Errorf("%d calls created a meeting, want 1", nCreated)
	}
	m, err := s.GetMeeting(ctx, tn.ID, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if m.RoomName != "주간-회의" || m.Status != store.MeetingActive || m.Title != "weekly" {
		t.Errorf("meeting = %+v", m)
	}

	// Another tenant's room of the same name is another meeting.
	other, err := s.EnsureTenant(ctx, "globex")
	if err != nil {
		t.Fatal(err)
	}
	om, c, err := s.ActiveMeetingForRoom(ctx, other.ID, "주간-회의", store.NewMeeting{})
	if err != nil || !c || om.ID == m.ID {
		t.Errorf("other tenant: %s created=%v err=%v, want a new meeting", om.ID, c, err)
	}

	// Once ended, the room gets a new meeting.
	ended, err := s.EndActiveMeetingsOfRoom(ctx, tn.ID, "주간-회의")
	if err != nil || len(ended) != 1 || ended[0].ID != m.ID || ended[0].Status != store.MeetingEnded {
		t.Fatalf("EndActiveMeetingsOfRoom = %+v, %v", ended, err)
	}
	again, err := s.EndActiveMeetingsOfRoom(ctx, tn.ID, "주간-회의")
	if err != nil || len(again) != 0 {
		t.Errorf("second EndActiveMeetingsOfRoom = %+v, %v, want none", again, err)
	}
	nm, c, err := s.ActiveMeetingForRoom(ctx, tn.ID, "주간-회의", store.NewMeeting{})
	if err != nil || !c || nm.ID == m.ID {
		t.Errorf("after end: %s created=%v err=%v, want a new meeting", nm.ID, c, err)
	}
}

func TestActiveMeetingForRoomRejectsEmptyRoom(t *testing.T) {
	s := storetest.New(t)
	tn, err := s.EnsureTenant(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ActiveMeetingForRoom(context.Background(), tn.ID, " ", store.NewMeeting{}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("empty room = %v, want ErrInvalid", err)
	}
}
