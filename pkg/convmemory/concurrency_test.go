package convmemory_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/tokens"
)

// twoProcesses returns two services with their own pools and engines on
// one database schema, as two mithubctl processes are.
func twoProcesses(t *testing.T) (*store.Store, store.Tenant, [2]*convmemory.Service) {
	t.Helper()
	dsn, schema := storetest.NewSchema(t)
	ctx := context.Background()
	count, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	var (
		svcs  [2]*convmemory.Service
		first *store.Store
	)
	for i := range svcs {
		st, err := store.Open(ctx, dsn, store.Options{Schema: schema, MaxConns: 8})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(st.Close)
		if i == 0 {
			if _, err := st.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			first = st
		}
		eng := convmemory.NewEngine(st, count, convmemory.NewLocal(), convmemory.Config{ContextWindow: window})
		svcs[i] = convmemory.NewService(eng, convmemory.NewInline(eng))
	}
	tenant, err := first.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	return first, tenant, svcs
}

// Concurrent adds, in one process and in two, all succeed with gapless
// seqs: 8 at once, then 32 (more than a bounded retry on the seq would
// survive).
func TestConcurrentAddsAreAllStored(t *testing.T) {
	st, tenant, svcs := twoProcesses(t)
	ctx := context.Background()
	c, err := svcs[0].StartChat(ctx, tenant.ID, "busy")
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for round, adders := range []int{8, 8, 32} {
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			seqs []int
			errs []error
		)
		for i := range adders {
			wg.Go(func() {
				// The first half uses one process, the rest the other.
				turn, err := svcs[i*2/adders].AddMessage(ctx, tenant.ID, c.ID, "user", fmt.Sprintf("round %d message %d", round, i))
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
					return
				}
				seqs = append(seqs, turn.Seq)
			})
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("round %d: %d of %d adds failed, first: %v", round, len(errs), adders, errs[0])
		}
		slices.Sort(seqs)
		for i, s := range seqs {
			if want := stored + i; s != want {
				t.Fatalf("round %d: seqs %v, want %d..%d", round, seqs, stored, stored+adders-1)
			}
		}
		stored += adders
	}
	refs, err := st.NodeRefs(ctx, tenant.ID, c.ID, 0, 0)
	if err != nil || len(refs) != stored {
		t.Fatalf("%d turns stored (%v), want %d", len(refs), err, stored)
	}
}

// Two processes compressing one conversation at once both finish without
// an error and leave one set of summaries that both agree on.
func TestTwoCompressorsOnOneConversation(t *testing.T) {
	st, tenant, svcs := twoProcesses(t)
	ctx := context.Background()
	f := &fixture{st: st, tenant: tenant, svc: svcs[0]}
	c := f.fillChat(t, 30_000)
	var (
		wg   sync.WaitGroup
		errs [2]error
	)
	for i, svc := range svcs {
		wg.Go(func() { _, errs[i] = svc.Compress(ctx, tenant.ID, c.ID, 0) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("compressor %d: %v", i, err)
		}
	}
	sums, err := st.NodeRefs(ctx, tenant.ID, c.ID, 1, math.MaxInt32)
	if err != nil || len(sums) == 0 {
		t.Fatalf("summaries: %d %v", len(sums), err)
	}
	var stats [2]convmemory.Stats
	for i, svc := range svcs {
		if stats[i], err = svc.Stats(ctx, tenant.ID, c.ID); err != nil {
			t.Fatal(err)
		}
		if stats[i].LiveTokens > svc.TargetTokens(0) {
			t.Errorf("process %d: live %d tokens over the target %d", i, stats[i].LiveTokens, svc.TargetTokens(0))
		}
	}
	if fmt.Sprint(stats[0]) != fmt.Sprint(stats[1]) {
		t.Errorf("the processes disagree:\n%+v\n%+v", stats[0], stats[1])
	}
	// A third compression finds nothing left to write.
	again, err := st.NodeRefs(ctx, tenant.ID, c.ID, 1, math.MaxInt32)
	if _, err2 := svcs[1].Compress(ctx, tenant.ID, c.ID, 0); err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	after, err := st.NodeRefs(ctx, tenant.ID, c.ID, 1, math.MaxInt32)
	if err != nil || fmt.Sprint(after) != fmt.Sprint(again) {
		t.Errorf("a finished compression rewrote nodes: %d before, %d after (%v)", len(again), len(after), err)
	}
}

// An engine's cached view, brought up to date call by call, says what a
// fresh engine reading everything says, while another process adds turns
// and writes summaries.
func TestCachedViewMatchesAFreshRead(t *testing.T) {
	st, tenant, svcs := twoProcesses(t)
	ctx := context.Background()
	c, err := svcs[0].StartChat(ctx, tenant.ID, "view")
	if err != nil {
		t.Fatal(err)
	}
	count, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	turns := qmsumTurns(t)
	for i, tr := range turns[:min(len(turns), 400)] {
		// Mostly this process, sometimes the other.
		if _, err := svcs[min(i%7, 1)].AddMessage(ctx, tenant.ID, c.ID, tr.Speaker, tr.Content); err != nil {
			t.Fatal(err)
		}
		if i%5 != 0 {
			continue
		}
		if i%100 == 50 {
			if _, err := svcs[1].Compress(ctx, tenant.ID, c.ID, 0); err != nil {
				t.Fatal(err)
			}
		}
		cached, err := svcs[0].Stats(ctx, tenant.ID, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		fresh := freshStats(t, st, count, tenant.ID, c.ID)
		if fmt.Sprint(cached) != fmt.Sprint(fresh) {
			t.Fatalf("after %d adds the cached view says\n%+v\na fresh read says\n%+v", i+1, cached, fresh)
		}
	}
}

func freshStats(t *testing.T, st conversation.Store, count tokens.Counter, tenantID, convID string) convmemory.Stats {
	t.Helper()
	eng := convmemory.NewEngine(st, count, convmemory.NewLocal(), convmemory.Config{ContextWindow: window})
	s, err := convmemory.NewService(eng, convmemory.NewInline(eng)).Stats(context.Background(), tenantID, convID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// One engine's view stays right while many goroutines add and read
// through it at once.
func TestCachedViewUnderConcurrentUse(t *testing.T) {
	st, tenant, svcs := twoProcesses(t)
	ctx := context.Background()
	c, err := svcs[0].StartChat(ctx, tenant.ID, "shared view")
	if err != nil {
		t.Fatal(err)
	}
	count, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	turns := qmsumTurns(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < min(len(turns), 240); i += 8 {
				if _, err := svcs[0].AddMessage(ctx, tenant.ID, c.ID, turns[i].Speaker, turns[i].Content); err != nil {
					errs <- err
					return
				}
				if _, err := svcs[0].Stats(ctx, tenant.ID, c.ID); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	cached, err := svcs[0].Stats(ctx, tenant.ID, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fresh := freshStats(t, st, count, tenant.ID, c.ID); fmt.Sprint(cached) != fmt.Sprint(fresh) {
		t.Fatalf("the cached view says\n%+v\na fresh read says\n%+v", cached, fresh)
	}
}
