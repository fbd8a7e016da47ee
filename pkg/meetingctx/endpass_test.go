package meetingctx_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// wholeSegmenter segments chunks like fakeSegmenter (a topic at every
// "#") and whole meetings differently: a topic at every "@", so a test
// sees which pass made the topics.
type wholeSegmenter struct {
	*fakeSegmenter
	meetingCalls atomic.Int32
	lastLen      atomic.Int32
}

func (w *wholeSegmenter) SegmentMeeting(_ context.Context, turns []meetingctx.Turn) ([]meetingctx.Segment, error) {
	w.meetingCalls.Add(1)
	w.lastLen.Store(int32(len(turns)))
	var segs []meetingctx.Segment
	for _, t := range turns {
		if len(segs) == 0 || strings.Contains(t.Text, "@") {
			segs = append(segs, meetingctx.Segment{StartSeq: t.Seq, EndSeq: t.Seq, Title: "whole " + t.Text, Summary: "from " + t.Text})
			continue
		}
		segs[len(segs)-1].EndSeq = t.Seq
	}
	return segs, nil
}

// memTurns is a TurnSource over turns kept in memory.
type memTurns struct {
	mu    sync.Mutex
	turns []meetingctx.Turn
	fail  atomic.Bool
}

func (s *memTurns) add(ts []meetingctx.Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, ts...)
}

func (s *memTurns) LoadTurns(_ context.Context, _, _ string, upTo int) ([]meetingctx.Turn, error) {
	if s.fail.Load() {
		return nil, errors.New("db down")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.turns[:upTo+1]), nil
}

type endFakes struct {
	seg   *wholeSegmenter
	turns *memTurns
	store *memStore
	eng   *meetingctx.Engine
}

func newEndEngine(t *testing.T, withTurns bool) *endFakes {
	f := &endFakes{seg: &wholeSegmenter{fakeSegmenter: &fakeSegmenter{}}, turns: &memTurns{}, store: &memStore{}}
	deps := meetingctx.EngineDeps{Segmenter: f.seg, Summarizer: &fakeSummarizer{}, Embedder: &fakeEmbedder{}, Store: f.store}
	if withTurns {
		deps.Turns = f.turns
	}
	f.eng = meetingctx.NewEngine(deps)
	t.Cleanup(func() { f.eng.Close(5 * time.Second) })
	return f
}

// markedTurns are turns from..from+n-1 with "#" where live segmentation
// cuts and "@" where the whole-meeting pass cuts.
func markedTurns(from, n int, live, whole []int) []meetingctx.Turn {
	ts := meetingTurns("m", from, n, func(int) bool { return false })
	for i := range ts {
		if slices.Contains(live, ts[i].Seq) {
			ts[i].Text = "#" + ts[i].Text
		}
		if slices.Contains(whole, ts[i].Seq) {
			ts[i].Text += "@"
		}
	}
	return ts
}

func spans(ts []meetingctx.Topic) [][2]int {
	out := make([][2]int, len(ts))
	for i, t := range ts {
		out[i] = [2]int{t.StartSeq, t.EndSeq}
	}
	return out
}

func (f *endFakes) feed(t *testing.T, m *meetingctx.Manager, ts []meetingctx.Turn) {
	t.Helper()
	f.turns.add(ts)
	if _, err := m.Apply(ts); err != nil {
		t.Fatal(err)
	}
}

func TestFinishReplacesLiveTopicsWithTheWholeMeetingPass(t *testing.T) {
	f := newEndEngine(t, true)
	m := meetingctx.New("t", "m", meetingctx.Config{}, f.eng)
	f.feed(t, m, markedTurns(0, 60, []int{20, 40}, []int{20, 30}))
	waitIdle(t, m)
	live := m.Snapshot()
	if got, want := spans(live.Topics), [][2]int{{0, 19}, {20, 39}, {40, 49}}; !slices.Equal(got, want) {
		t.Fatalf("live topics %v before the end, want %v (the last 10 turns pending)", got, want)
	}
	if n := f.seg.meetingCalls.Load(); n != 0 {
		t.Fatalf("whole-meeting pass ran %d times before the meeting ended", n)
	}

	m.Finish()
	waitIdle(t, m)
	s := m.Snapshot()
	if got, want := spans(s.Topics), [][2]int{{0, 19}, {20, 29}, {30, 59}}; !slices.Equal(got, want) {
		t.Fatalf("topics after the end %v, want the whole-meeting pass's %v", got, want)
	}
	if n, l := f.seg.meetingCalls.Load(), f.seg.lastLen.Load(); n != 1 || l != 60 {
		t.Fatalf("whole-meeting pass ran %d times over %d turns, want once over 60", n, l)
	}
	// Same span: the live topic is kept as it is.
	if s.Topics[0].ID != live.Topics[0].ID || s.Topics[0].Version != live.Topics[0].Version || s.Topics[0].Title != live.Topics[0].Title {
		t.Fatalf("topic 0 %+v, want the live topic %+v unchanged", s.Topics[0], live.Topics[0])
	}
	// New spans take the id of the live topic they overlap most, with a
	// new version and the pass's text; one id is never used twice.
	for i := 1; i <= 2; i++ {
		if s.Topics[i].ID != live.Topics[i].ID || s.Topics[i].Version <= live.Topics[i].Version || !strings.HasPrefix(s.Topics[i].Title, "whole ") {
			t.Fatalf("topic %d %+v, want live topic %d's id at a version above %d, titled by the pass", i, s.Topics[i], i, live.Topics[i].Version)
		}
	}
	for i, tp := range s.Topics {
		if tp.Embedding == nil {
			t.Fatalf("topic %d not embedded after the pass", i)
		}
	}
	if saved := f.store.saved["m"]; !slices.Equal(spans(saved), spans(s.Topics)) || f.store.cursor["m"] != 59 {
		t.Fatalf("saved %v at cursor %d, want %v at 59", spans(saved), f.store.cursor["m"], spans(s.Topics))
	}
	// Search sees the new topics' turns.
	if hits, err := m.Search(context.Background(), "turn35", 1); err != nil || len(hits) == 0 || hits[0].Topic.StartSeq != 30 {
		t.Fatalf("search for a turn of the last topic: %+v, %v", hits, err)
	}

	// A turn after the end is segmented at once and gets the pass again.
	f.feed(t, m, markedTurns(60, 1, nil, []int{60}))
	waitIdle(t, m)
	s = m.Snapshot()
	if got, want := spans(s.Topics), [][2]int{{0, 19}, {20, 29}, {30, 59}, {60, 60}}; !slices.Equal(got, want) {
		t.Fatalf("topics after a late turn %v, want %v", got, want)
	}
	if n := f.seg.meetingCalls.Load(); n != 2 {
		t.Fatalf("whole-meeting pass ran %d times, want 2", n)
	}
}

func TestEndPassFailureKeepsLiveTopics(t *testing.T) {
	f := newEndEngine(t, true)
	m := meetingctx.New("t", "m", meetingctx.Config{}, f.eng)
	f.turns.fail.Store(true)
	f.feed(t, m, markedTurns(0, 30, []int{10}, []int{5}))
	m.Finish()
	waitIdle(t, m)
	if got, want := spans(m.Snapshot().Topics), [][2]int{{0, 9}, {10, 29}}; !slices.Equal(got, want) {
		t.Fatalf("topics %v after a failed pass, want the live %v", got, want)
	}
	if n := f.seg.meetingCalls.Load(); n != 0 {
		t.Fatalf("segmented %d times without the turns", n)
	}
	// The next turn retries the pass.
	f.turns.fail.Store(false)
	f.feed(t, m, markedTurns(30, 1, nil, nil))
	waitIdle(t, m)
	if got, want := spans(m.Snapshot().Topics), [][2]int{{0, 4}, {5, 30}}; !slices.Equal(got, want) {
		t.Fatalf("topics %v after the retry, want %v", got, want)
	}
}

func TestRestoredEndedMeetingGetsTheEndPass(t *testing.T) {
	f := newEndEngine(t, true)
	turns := markedTurns(0, 40, []int{20}, []int{10})
	f.turns.add(turns)
	live := []meetingctx.Topic{
		{ID: "a", Title: "a", Summary: "a", StartSeq: 0, EndSeq: 19, Version: 1},
		{ID: "b", Title: "b", Summary: "b", StartSeq: 20, EndSeq: 39, Version: 1},
	}
	// Not ended: restored as stored.
	m, err := meetingctx.Restore("t", "m", meetingctx.Config{}, f.eng, meetingctx.State{Turns: turns, Topics: live})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(t, m)
	if got := spans(m.Snapshot().Topics); !slices.Equal(got, spans(live)) {
		t.Fatalf("a live meeting restored with topics %v, want %v", got, spans(live))
	}
	m, err = meetingctx.Restore("t", "m", meetingctx.Config{}, f.eng, meetingctx.State{Turns: turns, Topics: live, Ended: true})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(t, m)
	if got, want := spans(m.Snapshot().Topics), [][2]int{{0, 9}, {10, 39}}; !slices.Equal(got, want) {
		t.Fatalf("an ended meeting restored with topics %v, want the pass's %v", got, want)
	}
}

func TestFinishWithoutTurnSourceOnlyFlushes(t *testing.T) {
	f := newEndEngine(t, false)
	m := meetingctx.New("t", "m", meetingctx.Config{}, f.eng)
	f.feed(t, m, markedTurns(0, 30, []int{10}, []int{5}))
	m.Finish()
	waitIdle(t, m)
	s := m.Snapshot()
	if got, want := spans(s.Topics), [][2]int{{0, 9}, {10, 29}}; !slices.Equal(got, want) || s.L1Busy {
		t.Fatalf("topics %v busy %v, want the live %v and idle", got, s.L1Busy, want)
	}
	if n := f.seg.meetingCalls.Load(); n != 0 {
		t.Fatalf("whole-meeting pass ran %d times without a turn source", n)
	}
}
