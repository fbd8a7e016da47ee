package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store/storetest"
)

func TestListenMemoryBankHearsCommittedWritesOnly(t *testing.T) {
	s := storetest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tn, err := s.EnsureTenant(ctx, "notify")
	if err != nil {
		t.Fatal(err)
	}
	type change struct{ tenantID, project string }
	heard := make(chan change, 16)
	ready := make(chan struct{})
	listenCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- s.ListenMemoryBank(listenCtx, func() { close(ready) }, func(tenantID, project string) {
			heard <- change{tenantID, project}
		})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("listen: %v", err)
	}
	next := func() change {
		t.Helper()
		select {
		case c := <-heard:
			return c
		case <-ctx.Done():
			t.Fatal("no notification")
		}
		return change{}
	}

	if _, err := s.PutMemoryEntry(ctx, tn.ID, "밋허브", membank.CategorySummary, "요약"); err != nil {
		t.Fatal(err)
	}
	if c := next(); c != (change{tn.ID, "밋허브"}) {
		t.Fatalf("after put heard %+v", c)
	}
	set := func(v string) membank.Merger {
		return func(map[string]string) (map[string]string, error) {
			return map[string]string{membank.CategorySummary: v}, nil
		}
	}
	if err := s.MergeMemory(ctx, tn.ID, "밋허브", []string{membank.CategorySummary}, set("바뀐 요약")); err != nil {
		t.Fatal(err)
	}
	if c := next(); c != (change{tn.ID, "밋허브"}) {
		t.Fatalf("after merge heard %+v", c)
	}
	// A merge that changes nothing and one that fails say nothing: the
	// next thing heard is a later write to another project.
	if err := s.MergeMemory(ctx, tn.ID, "밋허브", []string{membank.CategorySummary}, set("바뀐 요약")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("merge failed")
	if err := s.MergeMemory(ctx, tn.ID, "밋허브", []string{membank.CategorySummary}, func(map[string]string) (map[string]string, error) {
		return nil, boom
	}); !errors.Is(err, boom) {
		t.Fatalf("failing merge = %v", err)
	}
	if _, err := s.PutMemoryEntry(ctx, tn.ID, "other", membank.CategorySummary, "x"); err != nil {
		t.Fatal(err)
	}
	if c := next(); c != (change{tn.ID, "other"}) {
		t.Fatalf("heard %+v, want only the write to other", c)
	}

	stop()
	if err := <-done; err != nil {
		t.Fatalf("listen after cancel = %v, want nil", err)
	}
}
