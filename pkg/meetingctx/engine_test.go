package meetingctx_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// fakeSegmenter cuts a new topic wherever a turn's text starts with "#",
// continues the previous topic otherwise, and records concurrency.
type fakeSegmenter struct {
	mu       sync.Mutex
	active   map[string]int // per first-turn segment prefix
	inFlight atomic.Int32
	maxSeen  atomic.Int32
	fail     atomic.Bool
	gate     chan struct{} // when set, every call waits for a receive
	calls    atomic.Int32
}

func (f *fakeSegmenter) Segment(ctx context.Context, in meetingctx.SegmentInput) (meetingctx.SegmentOutput, error) {
	f.calls.Add(1)
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxSeen.Load()
		if n <= m || f.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	meeting := strings.SplitN(in.Turns[0].SegmentID, "/", 2)[0]
	f.mu.Lock()
	if f.active == nil {
		f.active = map[string]int{}
	}
	f.active[meeting]++
	if f.active[meeting] > 1 {
		f.mu.Unlock()
		return meetingctx.SegmentOutput{}, fmt.Errorf("two runners for meeting %s", meeting)
	}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.active[meeting]--
		f.mu.Unlock()
	}()
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return meetingctx.SegmentOutput{}, ctx.Err()
		}
	}
	if f.fail.Load() {
		return meetingctx.SegmentOutput{}, errors.New("provider down")
	}
	out := meetingctx.SegmentOutput{ContinueTo: -1}
	for _, t := range in.Turns {
		if strings.HasPrefix(t.Text, "#") || (len(out.Segments) == 0 && in.Previous == nil) {
			out.Segments = append(out.Segments, meetingctx.Segment{StartSeq: t.Seq, EndSeq: t.Seq,
				Title: "title " + t.Text, Summary: "about " + t.Text, Keywords: []string{t.Text}})
			continue
		}
		if len(out.Segments) == 0 {
			out.ContinueTo = t.Seq
			continue
		}
		out.Segments[len(out.Segments)-1].EndSeq = t.Seq
	}
	return out, nil
}

type fakeSummarizer struct{ fail atomic.Bool }

func (f *fakeSummarizer) Summarize(_ context.Context, turns []meetingctx.Turn, hints []meetingctx.Topic) (meetingctx.Summary, error) {
	if f.fail.Load() {
		return meetingctx.Summary{}, errors.New("summarizer down")
	}
	var parts []string
	for _, h := range hints {
		parts = append(parts, h.Title)
	}
	return meetingctx.Summary{Title: "merged " + strings.Join(parts, "+"), Summary: fmt.Sprintf("%d turns", len(turns)), Keywords: []string{"k"}}, nil
}

// fakeEmbedder maps text to a vector by its first byte, so topics whose
// titles start alike are similar.
type fakeEmbedder struct{ fail atomic.Bool }

func (f *fakeEmbedder) Dimension() int { return 4 }
func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if f.fail.Load() {
		return nil, errors.New("embedder down")
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 4)
		v[int(t[len(t)-1])%4] = 1
		v[len(t)%4] += 0.5
		out[i] = v
	}
	return out, nil
}

type memStore struct {
	mu     sync.Mutex
	saved  map[string][]meetingctx.Topic
	cursor map[string]int
	fail   atomic.Bool
}

func (s *memStore) SaveTopics(_ context.Context, tenantID, meetingID string, l1Cursor int, topics []meetingctx.Topic) error {
	if s.fail.Load() {
		return errors.New("db down")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.saved == nil {
		s.saved, s.cursor = map[string][]meetingctx.Topic{}, map[string]int{}
	}
	s.saved[meetingID], s.cursor[meetingID] = topics, l1Cursor
	return nil
}

type fakes struct {
	seg   *fakeSegmenter
	sum   *fakeSummarizer
	emb   *fakeEmbedder
	store *memStore
	eng   *meetingctx.Engine
}

func newEngine(t *testing.T, maxLLM int) *fakes {
	f := &fakes{seg: &fakeSegmenter{}, sum: &fakeSummarizer{}, emb: &fakeEmbedder{}, store: &memStore{}}
	f.eng = meetingctx.NewEngine(meetingctx.EngineDeps{Segmenter: f.seg, Summarizer: f.sum, Embedder: f.emb,
		Store: f.store, MaxConcurrentLLM: maxLLM})
	t.Cleanup(func() { f.eng.Close(5 * time.Second) })
	return f
}

func meetingTurns(meeting string, from, n int, mark func(int) bool) []meetingctx.Turn {
	out := make([]meetingctx.Turn, n)
	for i := range out {
		seq := from + i
		text := fmt.Sprint("turn", seq)
		if mark(seq) {
			text = "#" + text
		}
		out[i] = meetingctx.Turn{Seq: seq, SegmentID: fmt.Sprintf("%s/%d", meeting, seq), SpeakerID: "s",
			Text: text, Tokens: 5, StartMS: int64(seq) * 1000, EndMS: int64(seq)*1000 + 900}
	}
	return out
}

// checkTiling fails unless topics cover 0..last contiguously, in order.
func checkTiling(t *testing.T, topics []meetingctx.Topic, last int) {
	t.Helper()
	next := 0
	for i, tp := range topics {
		if tp.StartSeq != next || tp.EndSeq < tp.StartSeq || tp.Seq != i {
			t.Fatalf("topic %d spans %d-%d (seq %d), expected to start at %d", i, tp.StartSeq, tp.EndSeq, tp.Seq, next)
		}
		next = tp.EndSeq + 1
	}
	if next != last+1 {
		t.Fatalf("topics end at %d, want %d", next-1, last)
	}
}

func waitIdle(t *testing.T, m *meetingctx.Manager) {
	t.Helper()
	if !m.WaitL1(context.Background(), 10*time.Second) {
		t.Fatal("L1 did not settle within 10s")
	}
}

func TestEngineTilesEveryTurnInOrder(t *testing.T) {
	f := newEngine(t, 2)
	m := meetingctx.New("t", "m1", meetingctx.Config{MaxTopics: 1000}, f.eng)
	all := meetingTurns("m1", 0, 137, func(s int) bool { return s%9 == 0 })
	for i := 0; i < len(all); i += 13 {
		if _, err := m.Apply(all[i:min(i+13, len(all))]); err != nil {
			t.Fatal(err)
		}
	}
	waitIdle(t, m)
	s := m.Snapshot()
	if s.L1Cursor != 124 || len(s.Pending) != 12 {
		t.Fatalf("before flush: l1 cursor %d, %d pending", s.L1Cursor, len(s.Pending))
	}
	m.Flush()
	waitIdle(t, m)
	s = m.Snapshot()
	checkTiling(t, s.Topics, 136)
	if len(s.Pending) != 0 {
		t.Fatalf("%d pending after flush", len(s.Pending))
	}
	// A boundary every 9 turns; chunk borders (every 25) must not add any.
	if len(s.Topics) != 16 {
		t.Fatalf("%d topics, want 16 (one per marker)", len(s.Topics))
	}
	saved := f.store.saved["m1"]
	if len(saved) != len(s.Topics) || f.store.cursor["m1"] != 136 {
		t.Fatalf("saved %d topics up to %d", len(saved), f.store.cursor["m1"])
	}
	for _, tp := range saved {
		if tp.Embedding == nil {
			t.Fatalf("topic %d saved without embedding", tp.Seq)
		}
	}
}

func TestEngineBoundsConcurrencyAndRunsOneRunnerPerMeeting(t *testing.T) {
	f := newEngine(t, 3)
	var ms []*meetingctx.Manager
	for i := range 8 {
		id := fmt.Sprint("m", i)
		m := meetingctx.New("t", id, meetingctx.Config{}, f.eng)
		ms = append(ms, m)
		for b := range 4 {
			if _, err := m.Apply(meetingTurns(id, b*25, 25, func(s int) bool { return s%7 == 0 })); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, m := range ms {
		waitIdle(t, m)
		checkTiling(t, m.Snapshot().Topics, 99)
		for _, tp := range m.Snapshot().Topics {
			if strings.HasPrefix(tp.Title, "Topic_") {
				t.Fatalf("fallback topic %s: a segmenter call failed (two runners?)", tp.Title)
			}
		}
	}
	if got := f.seg.maxSeen.Load(); got > 3 {
		t.Fatalf("%d segmenter calls in flight, bound is 3", got)
	}
}

func TestEngineFallsBackWhenProvidersFail(t *testing.T) {
	f := newEngine(t, 2)
	f.seg.fail.Store(true)
	f.sum.fail.Store(true)
	f.emb.fail.Store(true)
	m := meetingctx.New("t", "m", meetingctx.Config{}, f.eng)
	if _, err := m.Apply(meetingTurns("m", 0, 50, func(int) bool { return false })); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, m)
	s := m.Snapshot()
	checkTiling(t, s.Topics, 49)
	for _, tp := range s.Topics {
		if !strings.HasPrefix(tp.Title, "Topic_") || tp.Summary == "" || tp.Embedding != nil {
			t.Fatalf("topic %+v: want a fallback with text and no embedding", tp)
		}
	}
	// Providers recover: the next chunk embeds the earlier topics too.
	f.seg.fail.Store(false)
	f.emb.fail.Store(false)
	if _, err := m.Apply(meetingTurns("m", 50, 25, func(s int) bool { return s == 60 })); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, m)
	s = m.Snapshot()
	checkTiling(t, s.Topics, 74)
	for _, tp := range s.Topics {
		if tp.Embedding == nil {
			t.Fatalf("topic %d still unembedded after the embedder recovered", tp.Seq)
		}
	}
}

func TestEngineMergesOverCap(t *testing.T) {
	f := newEngine(t, 2)
	m := meetingctx.New("t", "m", meetingctx.Config{MaxTopics: 5}, f.eng)
	if _, err := m.Apply(meetingTurns("m", 0, 100, func(s int) bool { return s%4 == 0 })); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, m)
	s := m.Snapshot()
	checkTiling(t, s.Topics, 99)
	if len(s.Topics) > 5 {
		t.Fatalf("%d topics, cap is 5", len(s.Topics))
	}
	merged := 0
	for _, tp := range s.Topics {
		merged += len(tp.MergedFrom)
	}
	if merged != 25-len(s.Topics) {
		t.Fatalf("merged_from lists %d topics, want %d", merged, 25-len(s.Topics))
	}
}

func TestWaitL1IsBoundedAndPendingHasEveryTurn(t *testing.T) {
	f := newEngine(t, 2)
	f.seg.gate = make(chan struct{})
	m := meetingctx.New("t", "m", meetingctx.Config{}, f.eng)
	if _, err := m.Apply(meetingTurns("m", 0, 30, func(int) bool { return false })); err != nil {
		t.Fatal(err)
	}
	if m.WaitL1(context.Background(), 20*time.Millisecond) {
		t.Fatal("WaitL1 reported idle while the segmenter is blocked")
	}
	s := m.Snapshot()
	if len(s.Pending) != 30 || !s.L1Busy || len(s.Topics) != 0 {
		t.Fatalf("pending %d busy %v topics %d", len(s.Pending), s.L1Busy, len(s.Topics))
	}
	close(f.seg.gate)
	waitIdle(t, m)
	if s := m.Snapshot(); s.L1Cursor != 24 || len(s.Pending) != 5 {
		t.Fatalf("after release: l1 cursor %d pending %d", s.L1Cursor, len(s.Pending))
	}
}

func TestRestoreWithTopicsEqualsLive(t *testing.T) {
	f := newEngine(t, 2)
	m := meetingctx.New("t", "m", meetingctx.Config{}, f.eng)
	all := meetingTurns("m", 0, 80, func(s int) bool { return s%11 == 0 })
	if _, err := m.Apply(all); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, m)
	live := m.Snapshot()
	re, err := meetingctx.Restore("t", "m", meetingctx.Config{}, f.eng, meetingctx.State{Turns: all, Topics: f.store.saved["m"]})
	if err != nil {
		t.Fatal(err)
	}
	got := re.Snapshot()
	if got.L1Cursor != live.L1Cursor || len(got.Topics) != len(live.Topics) || len(got.Pending) != len(live.Pending) ||
		got.Cursor != live.Cursor || len(got.Speakers) != len(live.Speakers) {
		t.Fatalf("restored %+v\nlive %+v", got, live)
	}
	hits, err := re.Search(context.Background(), "turn44", 3)
	if err != nil || len(hits) == 0 || hits[0].StartSeq > 44 || hits[0].EndSeq < 44 {
		t.Fatalf("search after restore: %+v %v", hits, err)
	}
	if f.seg.calls.Load() != 3 {
		t.Fatalf("restore made segmenter calls: %d total", f.seg.calls.Load())
	}
}

// hangGuard only keeps a broken wait from hanging the test binary; no
// test asserts a duration against it.
const hangGuard = 10 * time.Second

// fakeTimers stands in for the timer that bounds WaitL1: it reports each
// bound asked for on started and expires only when the test sends on fire.
type fakeTimers struct {
	started chan time.Duration
	fire    chan time.Time
}

func newFakeTimers() *fakeTimers {
	return &fakeTimers{started: make(chan time.Duration, 16), fire: make(chan time.Time)}
}

func (f *fakeTimers) after(d time.Duration) (<-chan time.Time, func() bool) {
	f.started <- d
	return f.fire, func() bool { return true }
}

// bound returns the next bound a wait asked for.
func (f *fakeTimers) bound(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-f.started:
		return d
	case <-time.After(hangGuard):
		t.Fatal("no wait started its timer")
		return 0
	}
}

// expire fires the timer of a wait that is blocked on it.
func (f *fakeTimers) expire(t *testing.T) {
	t.Helper()
	select {
	case f.fire <- time.Now():
	case <-time.After(hangGuard):
		t.Fatal("no wait is blocked on its timer")
	}
}

// WaitL1 waits exactly its bound, no longer: with the segmenter stuck it
// starts a timer of d and gives up (false) when that timer expires.
func TestWaitL1GivesUpAtItsBound(t *testing.T) {
	timers := newFakeTimers()
	seg := &fakeSegmenter{gate: make(chan struct{})}
	eng := meetingctx.NewEngine(meetingctx.EngineDeps{Segmenter: seg, Summarizer: &fakeSummarizer{},
		Embedder: &fakeEmbedder{}, Store: &memStore{}, After: timers.after})
	t.Cleanup(func() {
		close(seg.gate)
		eng.Close(5 * time.Second)
	})
	m := meetingctx.New("t", "m", meetingctx.Config{}, eng)
	if _, err := m.Apply(meetingTurns("m", 0, 30, func(int) bool { return false })); err != nil {
		t.Fatal(err)
	}
	const d = 1500 * time.Millisecond
	done := make(chan bool, 1)
	go func() { done <- m.WaitL1(context.Background(), d) }()
	if got := timers.bound(t); got != d {
		t.Fatalf("WaitL1(%s) started a timer of %s", d, got)
	}
	timers.expire(t)
	select {
	case caughtUp := <-done:
		if caughtUp {
			t.Fatal("WaitL1 reported L1 caught up while the segmenter is blocked")
		}
	case <-time.After(hangGuard):
		t.Fatal("WaitL1 still waiting after its timer expired")
	}
	if s := m.Snapshot(); len(s.Pending) != 30 || !s.L1Busy {
		t.Fatalf("pending %d busy %v", len(s.Pending), s.L1Busy)
	}
}
