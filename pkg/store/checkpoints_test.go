package store_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

func TestCheckpointsPerThreadAndTenant(t *testing.T) {
	s := storetest.New(t)
	ctx := t.Context()
	tn, m := newMeeting(t, s, "acme")
	_, m2 := newMeeting(t, s, "acme")
	other, _ := newMeeting(t, s, "globex")

	if _, err := s.LatestCheckpoint(ctx, tn.ID, m.ID, "t1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("empty thread: %v", err)
	}
	for step := range 3 {
		st := json.RawMessage(fmt.Sprintf(`{"question":"q%d"}`, step))
		if err := s.SaveCheckpoint(ctx, tn.ID, store.Checkpoint{ThreadID: "t1", MeetingID: m.ID, Step: step, State: st}); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := s.LatestCheckpoint(ctx, tn.ID, m.ID, "t1")
	if err != nil || cp.Step != 2 || string(cp.State) != `{"question": "q2"}` {
		t.Fatalf("latest = %+v %s, %v", cp, cp.State, err)
	}
	tests := []struct {
		name   string
		tenant string
		cp     store.Checkpoint
		want   error
	}{
		{"step written twice", tn.ID, store.Checkpoint{ThreadID: "t1", MeetingID: m.ID, Step: 2, State: json.RawMessage(`{}`)}, store.ErrConflict},
		{"thread of another meeting", tn.ID, store.Checkpoint{ThreadID: "t1", MeetingID: m2.ID, Step: 0, State: json.RawMessage(`{}`)}, store.ErrConflict},
		{"meeting of another tenant", other.ID, store.Checkpoint{ThreadID: "t9", MeetingID: m.ID, Step: 0, State: json.RawMessage(`{}`)}, store.ErrNotFound},
		{"invalid state", tn.ID, store.Checkpoint{ThreadID: "t2", MeetingID: m.ID, Step: 0, State: json.RawMessage(`{`)}, store.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.SaveCheckpoint(ctx, tt.tenant, tt.cp); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := s.LatestCheckpoint(ctx, other.ID, m.ID, "t1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another tenant reads the thread: %v", err)
	}
}

func TestTranscriptRangeAndSince(t *testing.T) {
	s := storetest.New(t)
	ctx := t.Context()
	tn, m := newMeeting(t, s, "acme")
	var us []store.Utterance
	for i := range 10 {
		u := utter(fmt.Sprint("s", i), fmt.Sprint("turn ", i))
		u.StartMS, u.EndMS = int64(i)*1000, int64(i)*1000+500
		us = append(us, u)
	}
	if _, err := s.Ingest(ctx, tn.ID, m.ID, us); err != nil {
		t.Fatal(err)
	}
	got, err := s.TranscriptRange(ctx, tn.ID, m.ID, 3, 6, 0)
	if err != nil || len(got) != 4 || got[0].Seq != 3 || got[3].Seq != 6 {
		t.Fatalf("range 3..6: %d rows, %v", len(got), err)
	}
	got, err = s.TranscriptsSince(ctx, tn.ID, m.ID, 7000, 0)
	if err != nil || len(got) != 3 || got[0].StartMS != 7000 {
		t.Fatalf("since 7000: %+v, %v", got, err)
	}
	got, err = s.TranscriptsSince(ctx, tn.ID, m.ID, 0, 2)
	if err != nil || len(got) != 2 || got[0].Seq != 8 || got[1].Seq != 9 {
		t.Fatalf("last 2 since 0: %+v, %v", got, err)
	}
	other, _ := newMeeting(t, s, "globex")
	if got, _ := s.TranscriptRange(ctx, other.ID, m.ID, 0, 9, 0); len(got) != 0 {
		t.Fatalf("another tenant reads %d transcripts", len(got))
	}
}
