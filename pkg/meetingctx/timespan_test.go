package meetingctx_test

import (
	"testing"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// Concurrent writers store turns out of speaking order: a topic spans the
// earliest start and the latest end of its turns, never an inverted span.
func TestTopicTimeSpanCoversOutOfOrderTurns(t *testing.T) {
	f := newEngine(t, 2)
	m := meetingctx.New("t", "m1", meetingctx.Config{ChunkTurns: 6, MaxTopics: 1000}, f.eng)
	turns := meetingTurns("m1", 0, 12, func(s int) bool { return s == 0 || s == 8 })
	// Two writers, one 100 s ahead of the other, interleaved.
	for i := range turns {
		base := int64(0)
		if i%2 == 0 {
			base = 100_000
		}
		turns[i].StartMS, turns[i].EndMS = base+int64(i)*1000, base+int64(i)*1000+900
	}
	if _, err := m.Apply(turns); err != nil {
		t.Fatal(err)
	}
	m.Flush()
	waitIdle(t, m)
	s := m.Snapshot()
	checkTiling(t, s.Topics, 11)
	for _, tp := range s.Topics {
		lo, hi := int64(1<<62), int64(0)
		for _, tr := range turns[tp.StartSeq : tp.EndSeq+1] {
			lo, hi = min(lo, tr.StartMS), max(hi, tr.EndMS)
		}
		if tp.StartMS != lo || tp.EndMS != hi {
			t.Fatalf("topic %d-%d spans %d-%d ms, its turns %d-%d", tp.StartSeq, tp.EndSeq, tp.StartMS, tp.EndMS, lo, hi)
		}
	}
}
