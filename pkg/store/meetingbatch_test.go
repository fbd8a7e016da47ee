package store_test

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/mithub/mithub/pkg/store"
)

// Batched reads give every caller what GetMeeting gives it: its row, as
// of after it asked, or not found for another tenant's meeting, an
// unknown id or a malformed one; and after Close too.
func TestMeetingReader(t *testing.T) {
	s, tn, m, m2, other := checkpointFixture(t)
	ctx := t.Context()
	r := s.NewMeetingReader()
	t.Cleanup(r.Close) // a second Close is a no-op

	type ask struct {
		tenantID, id string
		want         store.Meeting // zero: not found
	}
	asks := []ask{
		{tn.ID, m.ID, m}, {tn.ID, strings.ToUpper(m2.ID), m2}, {other.ID, m.ID, store.Meeting{}},
		{tn.ID, uuid.NewString(), store.Meeting{}}, {tn.ID, "not-a-uuid", store.Meeting{}},
	}
	check := func(when string) {
		t.Helper()
		// Concurrent callers share statements; each gets its own answer.
		var wg sync.WaitGroup
		got := make([]store.Meeting, 60)
		errs := make([]error, 60)
		for i := range got {
			wg.Go(func() { got[i], errs[i] = r.Get(ctx, asks[i%len(asks)].tenantID, asks[i%len(asks)].id) })
		}
		wg.Wait()
		for i := range got {
			a := asks[i%len(asks)]
			if a.want.ID == "" {
				if !errors.Is(errs[i], store.ErrNotFound) {
					t.Fatalf("%s: get %s as tenant %s: %v, want not found", when, a.id, a.tenantID, errs[i])
				}
				continue
			}
			if errs[i] != nil || !reflect.DeepEqual(got[i], a.want) {
				t.Fatalf("%s: get %s: %+v, %v; want %+v", when, a.id, got[i], errs[i], a.want)
			}
		}
	}
	check("fresh")

	// A row changed by another writer is read as changed.
	if _, err := s.Ingest(ctx, tn.ID, m.ID, []store.Utterance{utter("a", "하나"), utter("b", "two")}); err != nil {
		t.Fatal(err)
	}
	var err error
	if asks[0].want, err = s.GetMeeting(ctx, tn.ID, m.ID); err != nil {
		t.Fatal(err)
	}
	if asks[0].want.Utterances != 2 {
		t.Fatalf("meeting row counts %d utterances after 2 were stored", asks[0].want.Utterances)
	}
	check("after ingest")

	r.Close()
	check("after close")
}
