package ingest_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/realtime-worker/internal/ingest"
	"github.com/mithub/mithub/services/realtime-worker/internal/testenv"
)

// env is a migrated schema reached directly (for assertions) and through
// a proxy the test can cut (for the writer).
type env struct {
	direct, proxied *store.Store
	proxy           *testenv.Proxy
	tenant          string
	meeting         string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	dsn, schema := storetest.NewSchema(t)
	direct, err := store.Open(ctx, dsn, store.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(direct.Close)
	if _, err := direct.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	tn, err := direct.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	m, err := direct.CreateMeeting(ctx, tn.ID, store.NewMeeting{Title: "standup", RoomName: "r"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(storetest.URLWithSchema(t, dsn, schema))
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := testenv.StartProxy(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	u.Host = proxy.Addr()
	proxied, err := store.Open(ctx, u.String(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxied.Close)
	return &env{direct: direct, proxied: proxied, proxy: proxy, tenant: tn.ID, meeting: m.ID}
}

func (e *env) rows(t *testing.T) []store.Transcript {
	t.Helper()
	ts, err := e.direct.ListTranscripts(context.Background(), e.tenant, e.meeting, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func utt(i int) store.Utterance {
	text := []string{"예산을 확정합시다.", "Let's ship on Friday."}[i%2]
	return store.Utterance{SegmentID: fmt.Sprintf("seg-%03d", i), SpeakerID: "s", SpeakerName: "S",
		Text: fmt.Sprintf("%s #%d", text, i), Confidence: 1, Tokens: 5}
}

type runningWriter struct {
	w      *ingest.Writer
	cancel context.CancelFunc
	done   chan struct{}
	synced chan string
}

func startWriter(t *testing.T, st ingest.Store, dir string) *runningWriter {
	t.Helper()
	sp, err := ingest.OpenSpool(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	r := &runningWriter{done: make(chan struct{}), synced: make(chan string, 1000)}
	r.w = ingest.NewWriter(st, sp, 50, slog.New(slog.NewTextHandler(t.Output(), nil)),
		func(meetingID string, _ int) { r.synced <- meetingID })
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.w.Run(ctx, 2*time.Second); sp.Close(); close(r.done) }()
	t.Cleanup(func() { cancel(); <-r.done })
	return r
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWriterSpoolsWhileDatabaseIsUnreachableAndKeepsOrder(t *testing.T) {
	e := newEnv(t)
	r := startWriter(t, e.proxied, t.TempDir())
	ctx := context.Background()

	for i := range 10 {
		if err := r.w.Add(ctx, e.tenant, e.meeting, utt(i)); err != nil {
			t.Fatal(err)
		}
	}
	if empty, err := r.w.Flush(ctx); err != nil || !empty {
		t.Fatalf("Flush = %v, %v", empty, err)
	}
	if n := len(e.rows(t)); n != 10 {
		t.Fatalf("%d rows before the cut, want 10", n)
	}

	e.proxy.Cut()
	for i := 10; i < 40; i++ {
		if err := r.w.Add(ctx, e.tenant, e.meeting, utt(i)); err != nil {
			t.Fatal(err)
		}
	}
	// Re-sent segments (as after a reconnect) must not double.
	for i := 5; i < 15; i++ {
		if err := r.w.Add(ctx, e.tenant, e.meeting, utt(i)); err != nil {
			t.Fatal(err)
		}
	}
	if empty, err := r.w.Flush(ctx); err != nil || empty {
		t.Fatalf("Flush while cut = %v, %v; want the spool in use", empty, err)
	}
	if st := r.w.Stats(); st.Pending == 0 {
		t.Fatalf("stats %+v: nothing pending while the database is cut", st)
	}
	e.proxy.Restore()
	waitFor(t, "the spool to drain", func() bool { return r.w.Stats().Pending == 0 })

	rows := e.rows(t)
	if len(rows) != 40 {
		t.Fatalf("%d rows, want 40", len(rows))
	}
	for i, tr := range rows {
		if tr.Seq != i || tr.SegmentID != utt(i).SegmentID || tr.Text != utt(i).Text {
			t.Errorf("row %d = seq %d %s %q, want %s in order", i, tr.Seq, tr.SegmentID, tr.Text, utt(i).SegmentID)
		}
	}
	if st := r.w.Stats(); st.Stored != 40 || st.Dropped != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestSpoolSurvivesRestart(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	ctx := context.Background()

	e.proxy.Cut()
	r := startWriter(t, e.proxied, dir)
	for i := range 20 {
		if err := r.w.Add(ctx, e.tenant, e.meeting, utt(i)); err != nil {
			t.Fatal(err)
		}
	}
	if empty, err := r.w.Flush(ctx); err != nil || empty {
		t.Fatalf("Flush = %v, %v", empty, err)
	}
	r.cancel()
	<-r.done
	if n := len(e.rows(t)); n != 0 {
		t.Fatalf("%d rows while cut", n)
	}

	e.proxy.Restore()
	r2 := startWriter(t, e.proxied, dir)
	// The rows are committed before the spool is acknowledged: wait for
	// both.
	waitFor(t, "the next process to drain the spool", func() bool {
		return len(e.rows(t)) == 20 && r2.w.Stats().Pending == 0
	})
	rows := e.rows(t)
	if len(rows) != 20 {
		t.Fatalf("%d rows after the drain, want 20", len(rows))
	}
	for i, tr := range rows {
		if tr.SegmentID != utt(i).SegmentID {
			t.Errorf("row %d is %s, want %s", i, tr.SegmentID, utt(i).SegmentID)
		}
	}
}

func TestSpoolBound(t *testing.T) {
	sp, err := ingest.OpenSpool(t.TempDir(), 4<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	e := newEnv(t)
	e.proxy.Cut()
	r := ingest.NewWriter(e.proxied, sp, 10, slog.New(slog.NewTextHandler(t.Output(), nil)), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx, time.Second); close(done) }()
	defer func() { cancel(); <-done }()
	for i := range 100 {
		if err := r.Add(ctx, e.tenant, e.meeting, utt(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	st := r.Stats()
	if st.Dropped == 0 || st.Spooled+st.Dropped != 100 || sp.Bytes() > 4<<10 {
		t.Errorf("stats %+v, spool %d bytes: a 4 KiB spool must refuse some of 100 segments and keep the rest", st, sp.Bytes())
	}
}
