package segment_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
)

// turnList is a TurnSource and TopicStore over one meeting in memory.
type turnList struct {
	turns []meetingctx.Turn
	mu    sync.Mutex
	saved []meetingctx.Topic
}

func (l *turnList) LoadTurns(_ context.Context, _, _ string, upTo int) ([]meetingctx.Turn, error) {
	return slices.Clone(l.turns[:upTo+1]), nil
}

func (l *turnList) SaveTopics(_ context.Context, _, _ string, _ int, topics []meetingctx.Topic) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.saved = topics
	return nil
}

func topicSpans(ts []meetingctx.Topic) [][2]int {
	out := make([][2]int, len(ts))
	for i, t := range ts {
		out[i] = [2]int{t.StartSeq, t.EndSeq}
	}
	return out
}

// TestEndedMeetingTopicsEqualTheOfflinePass replays QMSum validation
// meetings through the live engine with the local providers, ends them,
// and checks that the topics the engine holds and saves are exactly the
// segments of one offline SegmentMeeting pass over the same turns, while
// the live topics before the end were not (so the pass is what made them
// equal).
func TestEndedMeetingTopicsEqualTheOfflinePass(t *testing.T) {
	meetings := loadSplit(t, "val")[:8]
	seg := segment.NewSegmenter(segment.SegmenterConfig{})
	differed := 0
	for _, qm := range meetings {
		turns := meetingTurns(qm)
		src := &turnList{turns: turns}
		eng := meetingctx.NewEngine(meetingctx.EngineDeps{Segmenter: seg, Summarizer: segment.NewSummarizer(),
			Embedder: segment.NewEmbedder(64), Store: src, Turns: src})
		m := meetingctx.New("t", qm.Name, meetingctx.Config{}, eng)
		for i := 0; i < len(turns); i += 13 {
			if _, err := m.Apply(turns[i:min(i+13, len(turns))]); err != nil {
				t.Fatal(err)
			}
		}
		if !m.WaitL1(context.Background(), time.Minute) {
			t.Fatalf("%s: live L1 did not settle", qm.Name)
		}
		live := topicSpans(m.Snapshot().Topics)
		m.Finish()
		if !m.WaitL1(context.Background(), time.Minute) {
			t.Fatalf("%s: end of meeting did not settle", qm.Name)
		}
		segs, err := seg.SegmentMeeting(context.Background(), turns)
		if err != nil {
			t.Fatal(err)
		}
		want := make([][2]int, len(segs))
		for i, s := range segs {
			want[i] = [2]int{s.StartSeq, s.EndSeq}
		}
		got := topicSpans(m.Snapshot().Topics)
		if !slices.Equal(got, want) {
			t.Errorf("%s: topics after the end %v, offline pass %v", qm.Name, got, want)
		}
		src.mu.Lock()
		if saved := topicSpans(src.saved); !slices.Equal(saved, want) {
			t.Errorf("%s: saved topics %v, offline pass %v", qm.Name, saved, want)
		}
		src.mu.Unlock()
		if !slices.Equal(live, want) {
			differed++
		}
		if err := eng.Close(10 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if differed == 0 {
		t.Fatalf("live topics equalled the offline pass in all %d meetings: the test cannot tell whether the end pass ran", len(meetings))
	}
	t.Logf("%d of %d meetings changed topics at the end-of-meeting pass", differed, len(meetings))
}
