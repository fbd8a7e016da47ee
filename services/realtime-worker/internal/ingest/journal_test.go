package ingest_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/realtime-worker/internal/ingest"
)

// journalFiles lists the journal files in dir.
func journalFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "journal-") {
			names = append(names, e.Name())
		}
	}
	return names
}

// abandonedWriter is a writer whose Run never starts, as one whose
// process was killed with segments in its queue: it is never flushed,
// stopped or closed.
func abandonedWriter(t *testing.T, st ingest.Store, dir string) *ingest.Writer {
	t.Helper()
	sp, err := ingest.OpenSpool(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return ingest.NewWriter(st, sp, 50, slog.New(slog.NewTextHandler(t.Output(), nil)), nil)
}

func TestJournalReplaysSegmentsOfAKilledWriterOnce(t *testing.T) {
	defer ingest.SetJournalRotate(1 << 10)() // several files
	e := newEnv(t)
	dir := t.TempDir()
	ctx := context.Background()

	w := abandonedWriter(t, e.direct, dir)
	for i := range 30 {
		if err := w.Add(ctx, e.tenant, e.meeting, utt(i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(journalFiles(t, dir)); n < 2 {
		t.Fatalf("%d journal files, want the 1 KiB rotation to have made several", n)
	}
	if n := len(e.rows(t)); n != 0 {
		t.Fatalf("%d rows before the restart", n)
	}

	r := startWriter(t, e.direct, dir)
	waitFor(t, "the journal to be replayed", func() bool { return r.w.Stats().Pending == 0 && len(e.rows(t)) >= 30 })
	rows := e.rows(t)
	if len(rows) != 30 {
		t.Fatalf("%d rows, want 30", len(rows))
	}
	for i, tr := range rows {
		if tr.SegmentID != utt(i).SegmentID || tr.Text != utt(i).Text {
			t.Errorf("row %d = %s %q, want %s in order", i, tr.SegmentID, tr.Text, utt(i).SegmentID)
		}
	}
	if st := r.w.Stats(); st.Stored != 30 || st.Duplicates != 0 {
		t.Errorf("stats %+v, want 30 stored", st)
	}
	if names := journalFiles(t, dir); len(names) != 1 {
		t.Errorf("journal files after the replay: %v, want only the new one", names)
	}
}

// gatedStore writes through to the store, then, once closed is set,
// never returns: a process killed right after its write reached the
// database.
type gatedStore struct {
	ingest.Store
	mu     sync.Mutex
	closed bool
	wrote  chan struct{}
	gate   chan struct{}
}

func (g *gatedStore) Ingest(ctx context.Context, tenantID, meetingID string, us []store.Utterance) (store.IngestResult, error) {
	res, err := g.Store.Ingest(ctx, tenantID, meetingID, us)
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	if closed {
		g.wrote <- struct{}{}
		<-g.gate
	}
	return res, err
}

func TestJournalKeepsOnlyWhatIsNotYetWritten(t *testing.T) {
	defer ingest.SetJournalRotate(1 << 10)()
	e := newEnv(t)
	dir := t.TempDir()
	ctx := context.Background()
	g := &gatedStore{Store: e.direct, wrote: make(chan struct{}, 10), gate: make(chan struct{})}

	sp, err := ingest.OpenSpool(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	w := ingest.NewWriter(g, sp, 50, slog.New(slog.NewTextHandler(t.Output(), nil)), nil)
	wctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(wctx, time.Second); close(done) }()
	t.Cleanup(func() { close(g.gate); cancel(); <-done })

	for i := range 40 {
		if err := w.Add(ctx, e.tenant, e.meeting, utt(i)); err != nil {
			t.Fatal(err)
		}
	}
	if empty, err := w.Flush(ctx); err != nil || !empty {
		t.Fatalf("Flush = %v, %v", empty, err)
	}
	if n := sp.Journal().Bytes(); n != 0 {
		t.Fatalf("journal holds %d bytes after every segment was written, want 0", n)
	}
	if names := journalFiles(t, dir); len(names) != 1 {
		t.Fatalf("journal files %v after a flush, want one", names)
	}

	// The next write reaches the database, then the process "dies".
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	if err := w.Add(ctx, e.tenant, e.meeting, utt(40)); err != nil {
		t.Fatal(err)
	}
	<-g.wrote
	for i := 41; i < 45; i++ {
		if err := w.Add(ctx, e.tenant, e.meeting, utt(i)); err != nil {
			t.Fatal(err)
		}
	}

	r := startWriter(t, e.direct, dir)
	waitFor(t, "the journal to be replayed", func() bool { return r.w.Stats().Pending == 0 && len(e.rows(t)) >= 45 })
	rows := e.rows(t)
	if len(rows) != 45 {
		t.Fatalf("%d rows, want 45", len(rows))
	}
	for i, tr := range rows {
		if tr.SegmentID != utt(i).SegmentID {
			t.Errorf("row %d = %s, want %s", i, tr.SegmentID, utt(i).SegmentID)
		}
	}
	// Segment 40 reached the database before the crash: replaying it is a
	// duplicate; the 40 flushed before were not journaled any more.
	if st := r.w.Stats(); st.Stored != 4 || st.Duplicates != 1 {
		t.Errorf("stats after the replay %+v, want 4 stored and 1 duplicate", st)
	}
	if _, err := os.Stat(filepath.Join(dir, "segments.jsonl")); err != nil {
		t.Error(err)
	}
}
