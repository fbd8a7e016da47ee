package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

func TestEachTranscriptPages(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, m := newMeeting(t, s, "acme")
	other, _ := s.EnsureTenant(ctx, "other")
	var us []store.Utterance
	for i := range 7 {
		text := fmt.Sprintf("turn %d", i)
		if i%2 == 1 {
			text = fmt.Sprintf("발언 %d", i)
		}
		us = append(us, utter(fmt.Sprintf("s%d", i), text))
	}
	res, err := s.Ingest(ctx, tn.ID, m.ID, us)
	if err != nil {
		t.Fatal(err)
	}
	collect := func(tenantID string, lastID int64, page int) []int {
		t.Helper()
		var seqs []int
		err := s.EachTranscript(ctx, tenantID, m.ID, lastID, page, func(tr store.Transcript) error {
			seqs = append(seqs, tr.Seq)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return seqs
	}
	// Pages of 3 over 7 rows: a full page, another, a short one; page
	// sizes that divide the count exactly end with an empty page.
	for _, page := range []int{1, 3, 7, 100} {
		got := collect(tn.ID, 0, page)
		if fmt.Sprint(got) != "[0 1 2 3 4 5 6]" {
			t.Errorf("page %d: seqs %v, want 0..6 once each in order", page, got)
		}
	}
	if got := collect(tn.ID, res.Inserted[4].ID, 2); fmt.Sprint(got) != "[0 1 2 3 4]" {
		t.Errorf("up to id of seq 4: seqs %v", got)
	}
	if got := collect(other.ID, 0, 2); len(got) != 0 {
		t.Errorf("another tenant read %v", got)
	}
	if n, err := s.CountTranscriptsUpTo(ctx, tn.ID, m.ID, res.Inserted[4].ID); err != nil || n != 5 {
		t.Errorf("CountTranscriptsUpTo = %d %v, want 5", n, err)
	}
	if n, err := s.CountTranscriptsUpTo(ctx, tn.ID, m.ID, 0); err != nil || n != 7 {
		t.Errorf("CountTranscriptsUpTo(0) = %d %v, want 7", n, err)
	}
	stop := errors.New("stop")
	calls := 0
	err = s.EachTranscript(ctx, tn.ID, m.ID, 0, 2, func(store.Transcript) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 {
		t.Errorf("stopping walk: err %v after %d calls, want stop after 3", err, calls)
	}
}
