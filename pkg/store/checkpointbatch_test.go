package store_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

// checkpointFixture is a store with tenant tn's meetings m and m2 and
// another tenant.
func checkpointFixture(t *testing.T) (s *store.Store, tn store.Tenant, m, m2 store.Meeting, other store.Tenant) {
	s = storetest.New(t)
	tn, m = newMeeting(t, s, "acme")
	_, m2 = newMeeting(t, s, "acme")
	other, _ = newMeeting(t, s, "globex")
	return s, tn, m, m2, other
}

// One statement writes the rows that keep SaveCheckpoint's rules and
// leaves out the others.
func TestSaveCheckpointBatchKeepsTheRules(t *testing.T) {
	s, tn, m, m2, other := checkpointFixture(t)
	ctx := t.Context()
	state := json.RawMessage(`{"question":"누가 맡나요?"}`)
	if err := s.SaveCheckpoint(ctx, tn.ID, store.Checkpoint{ThreadID: "old", MeetingID: m.ID, Step: 0, State: state}); err != nil {
		t.Fatal(err)
	}
	batch := []store.TenantCheckpoint{
		{TenantID: tn.ID, Checkpoint: store.Checkpoint{ThreadID: "new", MeetingID: m.ID, Step: 0, State: state}},
		{TenantID: tn.ID, Checkpoint: store.Checkpoint{ThreadID: "old", MeetingID: m.ID, Step: 0, State: state}},  // step exists
		{TenantID: tn.ID, Checkpoint: store.Checkpoint{ThreadID: "old", MeetingID: m2.ID, Step: 1, State: state}}, // another meeting's thread
		{TenantID: other.ID, Checkpoint: store.Checkpoint{ThreadID: "x", MeetingID: m.ID, Step: 0, State: state}}, // another tenant's meeting
		{TenantID: tn.ID, Checkpoint: store.Checkpoint{ThreadID: "y", MeetingID: uuid.NewString(), Step: 0, State: state}},
		{TenantID: tn.ID, Checkpoint: store.Checkpoint{ThreadID: "next", MeetingID: m2.ID, Step: 4, State: state}},
	}
	saved, err := s.SaveCheckpointBatch(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, false, false, false, true}; fmt.Sprint(saved) != fmt.Sprint(want) {
		t.Fatalf("saved %v, want %v", saved, want)
	}
	if cp, err := s.LatestCheckpoint(ctx, tn.ID, m2.ID, "next"); err != nil || cp.Step != 4 {
		t.Fatalf("latest of next = %+v, %v", cp, err)
	}
	if _, err := s.LatestCheckpoint(ctx, other.ID, m.ID, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another tenant's row was written: %v", err)
	}
}

func TestCheckpointWriter(t *testing.T) {
	s, tn, m, m2, other := checkpointFixture(t)
	ctx := t.Context()
	w := s.NewCheckpointWriter()
	state := json.RawMessage(`{"answer":"김민수 (03:10)"}`)

	// Concurrent saves go out in batches; every one is written, two
	// steps of one thread included.
	var wg sync.WaitGroup
	errs := make([]error, 42)
	for i := range 40 {
		wg.Go(func() {
			errs[i] = w.Save(ctx, tn.ID, store.Checkpoint{ThreadID: fmt.Sprint("t", i), MeetingID: m.ID, Step: 0, State: state})
		})
	}
	for step := range 2 {
		wg.Go(func() {
			errs[40+step] = w.Save(ctx, tn.ID, store.Checkpoint{ThreadID: "same", MeetingID: m.ID, Step: step, State: state})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
	}
	for i := range 40 {
		if _, err := s.LatestCheckpoint(ctx, tn.ID, m.ID, fmt.Sprint("t", i)); err != nil {
			t.Fatalf("thread t%d: %v", i, err)
		}
	}
	if cp, err := s.LatestCheckpoint(ctx, tn.ID, m.ID, "same"); err != nil || cp.Step != 1 {
		t.Fatalf("thread same: %+v, %v", cp, err)
	}

	// A save the batch leaves out gets SaveCheckpoint's error.
	tests := []struct {
		name   string
		tenant string
		cp     store.Checkpoint
		want   error
	}{
		{"step written twice", tn.ID, store.Checkpoint{ThreadID: "t1", MeetingID: m.ID, Step: 0, State: state}, store.ErrConflict},
		{"thread of another meeting", tn.ID, store.Checkpoint{ThreadID: "t1", MeetingID: m2.ID, Step: 1, State: state}, store.ErrConflict},
		{"meeting of another tenant", other.ID, store.Checkpoint{ThreadID: "t9", MeetingID: m.ID, Step: 0, State: state}, store.ErrNotFound},
		{"unknown meeting", tn.ID, store.Checkpoint{ThreadID: "t9", MeetingID: uuid.NewString(), Step: 0, State: state}, store.ErrNotFound},
		{"not a meeting id", tn.ID, store.Checkpoint{ThreadID: "t9", MeetingID: "m-1", Step: 0, State: state}, store.ErrNotFound},
		{"invalid state", tn.ID, store.Checkpoint{ThreadID: "t9", MeetingID: m.ID, Step: 0, State: json.RawMessage(`{`)}, store.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := w.Save(ctx, tt.tenant, tt.cp); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}

	w.Close()
	if err := w.Save(ctx, tn.ID, store.Checkpoint{ThreadID: "late", MeetingID: m.ID, Step: 0, State: state}); !errors.Is(err, store.ErrWriterClosed) {
		t.Fatalf("save after close = %v", err)
	}
	w.Close() // twice is fine
}
