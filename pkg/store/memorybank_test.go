package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

func TestMemoryEntryPutGetTenantScoped(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	a, err := s.EnsureTenant(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.EnsureTenant(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutMemoryEntry(ctx, a.ID, "밋허브", membank.CategorySummary, "첫 요약"); err != nil {
		t.Fatal(err)
	}
	e, err := s.PutMemoryEntry(ctx, a.ID, "밋허브", membank.CategorySummary, "두 번째 요약")
	if err != nil || e.Content != "두 번째 요약" {
		t.Fatalf("put again = %+v %v", e, err)
	}
	if _, err := s.MemoryEntryOf(ctx, b.ID, "밋허브", membank.CategorySummary); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("other tenant reads = %v, want ErrNotFound", err)
	}
	bank, err := s.MemoryBank(ctx, a.ID, "밋허브")
	if err != nil || len(bank) != 1 || bank[0].Content != "두 번째 요약" {
		t.Errorf("MemoryBank = %+v %v", bank, err)
	}
}

func TestMemoryEntryRejectsBadInput(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, err := s.EnsureTenant(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name              string
		project, category string
		content           string
	}{
		{"empty project", "", membank.CategorySummary, "x"},
		{"slash", "a/b", membank.CategorySummary, "x"},
		{"long project", strings.Repeat("p", membank.MaxProjectLen+1), membank.CategorySummary, "x"},
		{"unknown category", "p", "05-other", "x"},
		{"NUL", "p", membank.CategorySummary, "a\x00b"},
		{"bad UTF-8", "p", membank.CategorySummary, "\xff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.PutMemoryEntry(ctx, tn.ID, tt.project, tt.category, tt.content); !errors.Is(err, store.ErrInvalid) {
				t.Errorf("PutMemoryEntry = %v, want ErrInvalid", err)
			}
		})
	}
}

// Concurrent merges of one category serialise: none loses another's line.
func TestMergeMemoryConcurrentAppendsKeepEveryLine(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, err := s.EnsureTenant(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	const n = 10
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.MergeMemory(ctx, tn.ID, "p", []string{membank.CategoryDecisions, membank.CategoryProgress},
				func(cur map[string]string) (map[string]string, error) {
					return map[string]string{
						membank.CategoryDecisions: cur[membank.CategoryDecisions] + fmt.Sprintf("- d%d\n", i),
						membank.CategoryProgress:  cur[membank.CategoryProgress] + fmt.Sprintf("- p%d\n", i),
					}, nil
				})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("merge %d: %v", i, err)
		}
	}
	for _, c := range []string{membank.CategoryDecisions, membank.CategoryProgress} {
		e, err := s.MemoryEntryOf(ctx, tn.ID, "p", c)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(e.Content, "\n"); got != n {
			t.Errorf("%s has %d lines, want %d:\n%s", c, got, n, e.Content)
		}
	}
}

func TestProjectStatusUpsertPerMeeting(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, m := newMeeting(t, s, "acme")
	for _, c := range []string{"first", "second"} {
		if err := s.PutProjectStatus(ctx, tn.ID, "p", m.ID, c); err != nil {
			t.Fatal(err)
		}
	}
	sts, err := s.ProjectStatuses(ctx, tn.ID, "p", 0)
	if err != nil || len(sts) != 1 || sts[0].Content != "second" {
		t.Errorf("statuses = %+v %v; want one row with the last content", sts, err)
	}
	other, err := s.EnsureTenant(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutProjectStatus(ctx, other.ID, "p", m.ID, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("status for another tenant's meeting = %v, want ErrNotFound", err)
	}
}
