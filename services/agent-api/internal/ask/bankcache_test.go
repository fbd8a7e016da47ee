package ask

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

// countingBank reads "<tenant>/<project> #<n>" and counts reads; during
// runs inside a read.
type countingBank struct {
	reads  int
	during func()
}

func (b *countingBank) read(_ context.Context, tenantID string, m store.Meeting) (string, error) {
	b.reads++
	if b.during != nil {
		b.during()
	}
	return tenantID + "/" + m.Project(), nil
}

func meetingOf(project string) store.Meeting {
	return store.Meeting{ID: "m", Metadata: map[string]any{"project": project}}
}

func TestBankCacheKeepsOnlyWhileListening(t *testing.T) {
	ctx := context.Background()
	b := &countingBank{}
	c := NewBankCache(b.read, 0)
	now := time.Unix(1000, 0)
	c.now = func() time.Time { return now }
	ask := func(tenant, project string) string {
		t.Helper()
		text, err := c.Bank(ctx, tenant, meetingOf(project))
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	expectReads := func(want int, when string) {
		t.Helper()
		if b.reads != want {
			t.Fatalf("%s: %d reads, want %d", when, b.reads, want)
		}
	}

	ask("t1", "p")
	ask("t1", "p")
	expectReads(2, "not listening yet")

	c.setLive()
	ask("t1", "p")
	if got := ask("t1", "p"); got != "t1/p" {
		t.Fatalf("cached text %q", got)
	}
	expectReads(3, "listening")
	if got := ask("t2", "p"); got != "t2/p" {
		t.Fatalf("another tenant read %q", got)
	}
	expectReads(4, "another tenant")

	c.Drop("t1", "other")
	ask("t1", "p")
	expectReads(4, "a write to another project")
	c.Drop("t1", "p")
	ask("t1", "p")
	expectReads(5, "after a write to the project")

	// A write heard while a read runs: that read's text is not kept.
	b.during = func() { c.Drop("t3", "p") }
	ask("t3", "p")
	b.during = nil
	ask("t3", "p")
	expectReads(7, "a write during the read")
	ask("t3", "p")
	expectReads(7, "the read after it")

	now = now.Add(DefaultBankCacheTTL)
	ask("t3", "p")
	expectReads(8, "past the TTL")

	c.setDown()
	ask("t3", "p")
	ask("t3", "p")
	expectReads(10, "listener down")
}

func TestBankCacheSeesWritesFromAnotherStore(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn, schema := storetest.NewSchema(t)
	open := func() *store.Store {
		s, err := store.Open(ctx, dsn, store.Options{Schema: schema, MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	api, worker := open(), open()
	if _, err := api.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	tn, err := api.EnsureTenant(ctx, "bank")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.PutMemoryEntry(ctx, tn.ID, "밋허브", membank.CategorySummary, "첫 요약"); err != nil {
		t.Fatal(err)
	}

	reads := 0
	stored := StoredBank(api)
	c := NewBankCache(func(ctx context.Context, tenantID string, m store.Meeting) (string, error) {
		reads++
		return stored(ctx, tenantID, m)
	}, 0)
	live := make(chan struct{})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(runCtx, readyHook{api, live}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	defer func() { stop(); <-done }()
	<-live

	m := meetingOf("밋허브")
	for range 3 {
		if text, err := c.Bank(ctx, tn.ID, m); err != nil || text != "### "+membank.CategorySummary+"\n첫 요약\n" {
			t.Fatalf("bank = %q, %v", text, err)
		}
	}
	if reads != 1 {
		t.Fatalf("%d reads for three asks, want 1", reads)
	}
	// The pr-worker (another process, here another pool) merges a decision.
	if err := worker.MergeMemory(ctx, tn.ID, "밋허브", []string{membank.CategoryDecisions}, func(map[string]string) (map[string]string, error) {
		return map[string]string{membank.CategoryDecisions: "출시일은 3월"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for {
		text, err := c.Bank(ctx, tn.ID, m)
		if err != nil {
			t.Fatal(err)
		}
		if text != "### "+membank.CategorySummary+"\n첫 요약\n" {
			if want := "### " + membank.CategoryDecisions + "\n출시일은 3월\n"; !strings.Contains("\n"+text, "\n"+want) {
				t.Fatalf("bank after the merge = %q, want it to hold %q", text, want)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the merge never reached the cache")
		}
		<-time.After(time.Millisecond) // polls until the notification lands
	}
}

// readyHook tells the test when the listener is live.
type readyHook struct {
	l    BankListener
	live chan struct{}
}

func (h readyHook) ListenMemoryBank(ctx context.Context, ready func(), changed func(string, string)) error {
	return h.l.ListenMemoryBank(ctx, func() { ready(); close(h.live) }, changed)
}
