package convmemory

import (
	"testing"

	"github.com/mithub/mithub/pkg/conversation"
)

func refs(tokens ...int) []conversation.NodeRef {
	out := make([]conversation.NodeRef, len(tokens))
	for i, t := range tokens {
		out[i] = conversation.NodeRef{ID: int64(1000 + i), Seq: i, Tokens: t}
	}
	return out
}

func TestPlanChunks(t *testing.T) {
	tests := []struct {
		name       string
		give       []int
		wantChunks [][2]int
		wantTail   int
	}{
		{"empty", nil, nil, 0},
		{"all tail", []int{100, 100, 100}, nil, 0},
		{"closes at the size", []int{200, 300, 100}, [][2]int{{0, 2}}, 2},
		{"overshoots on a turn boundary", []int{300, 300, 300, 300}, [][2]int{{0, 2}, {2, 4}}, 4},
		{"long turn alone", []int{2000, 10, 600}, [][2]int{{0, 1}, {1, 3}}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, tail := planChunks(refs(tt.give...), 500)
			if len(chunks) != len(tt.wantChunks) || tail != tt.wantTail {
				t.Fatalf("chunks %v tail %d, want %v tail %d", chunks, tail, tt.wantChunks, tt.wantTail)
			}
			for i, c := range chunks {
				if c.start != tt.wantChunks[i][0] || c.end != tt.wantChunks[i][1] {
					t.Errorf("chunk %d = [%d,%d), want %v", i, c.start, c.end, tt.wantChunks[i])
				}
			}
		})
	}
}

// simulate runs plan to completion, storing each unit as a node of the
// given size, and returns the final plan and how many units ran.
func simulate(t *testing.T, turns []conversation.NodeRef, target, fanIn, nodeTokens int) (Plan, *snapshot, int) {
	t.Helper()
	chunks, tail := planChunks(turns, 500)
	var sums []conversation.NodeRef
	nextID := int64(1)
	ran := 0
	for range 100 {
		s := newSnapshot(turns, chunks, tail, sums)
		p := s.plan(target, fanIn)
		if p.Done {
			return p, s, ran
		}
		if len(p.Pending) == 0 {
			t.Fatal("plan not done but nothing pending")
		}
		for _, u := range p.Pending {
			sums = append(sums, conversation.NodeRef{ID: nextID, Level: u.Level, Seq: u.Seq, Tokens: nodeTokens, ChildIDs: u.ChildIDs})
			nextID++
			ran++
		}
	}
	t.Fatal("plan did not finish")
	return Plan{}, nil, 0
}

func TestPlanMergesFiveAtATimeUntilItFits(t *testing.T) {
	turns := make([]int, 1000) // 1000 turns of 50 tokens: 100 chunks
	for i := range turns {
		turns[i] = 50
	}
	tests := []struct {
		name       string
		target     int
		wantLevels []LevelProgress
		wantFits   bool
	}{
		{"level 1 fits", 100 * 40, []LevelProgress{{1, 100, 100}}, true},
		{"one merge level", 20 * 40, []LevelProgress{{1, 100, 100}, {2, 20, 20}}, true},
		{"down to the top", 40, []LevelProgress{{1, 100, 100}, {2, 20, 20}, {3, 4, 4}, {4, 1, 1}}, true},
		{"cannot fit", 10, []LevelProgress{{1, 100, 100}, {2, 20, 20}, {3, 4, 4}, {4, 1, 1}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, s, ran := simulate(t, refs(turns...), tt.target, 5, 40)
			if p.Fits != tt.wantFits {
				t.Errorf("fits = %v, want %v (cover %d)", p.Fits, tt.wantFits, p.CoverTokens)
			}
			if len(p.Levels) != len(tt.wantLevels) {
				t.Fatalf("levels %+v, want %+v", p.Levels, tt.wantLevels)
			}
			for i := range p.Levels {
				if p.Levels[i] != tt.wantLevels[i] {
					t.Errorf("level %d = %+v, want %+v", i, p.Levels[i], tt.wantLevels[i])
				}
			}
			if ran != p.UnitsPlanned() {
				t.Errorf("ran %d units, planned %d", ran, p.UnitsPlanned())
			}
			if tt.wantFits && itemTokens(s.cover(5)) > tt.target {
				t.Errorf("cover %d tokens > target %d", itemTokens(s.cover(5)), tt.target)
			}
		})
	}
}

func TestPlanKeepsUnmergedRemaindersInTheCover(t *testing.T) {
	turns := make([]int, 70) // 7 chunks of 500 tokens, no tail
	for i := range turns {
		turns[i] = 50
	}
	p, s, _ := simulate(t, refs(turns...), 200, 5, 40)
	// 7 summaries (280) > 200: one merge of the first five, two left:
	// 40 + 2*40 = 120.
	if !p.Fits || p.CoverTokens != 120 || len(p.Levels) != 2 || p.Levels[1].Planned != 1 {
		t.Fatalf("plan %+v", p)
	}
	cover := s.cover(5)
	wantLevels := []int{2, 1, 1}
	if len(cover) != len(wantLevels) {
		t.Fatalf("cover has %d items, want %d", len(cover), len(wantLevels))
	}
	for i, it := range cover {
		if it.level != wantLevels[i] {
			t.Errorf("cover[%d] level %d, want %d", i, it.level, wantLevels[i])
		}
	}
	if cover[0].first != 0 || cover[0].last != 50 || cover[2].last != 70 {
		t.Errorf("spans: %d-%d ... %d", cover[0].first, cover[0].last, cover[2].last)
	}
}

func TestPartialMergeIsReplacedWhenTheGroupFills(t *testing.T) {
	turns := make([]int, 30) // 3 chunks
	for i := range turns {
		turns[i] = 50
	}
	chunks, tail := planChunks(refs(turns...), 500)
	s := newSnapshot(refs(turns...), chunks, tail, []conversation.NodeRef{
		{ID: 1, Level: 1, Seq: 0, Tokens: 40, ChildIDs: ids(1000, 10)},
		{ID: 2, Level: 1, Seq: 1, Tokens: 40, ChildIDs: ids(1010, 10)},
		{ID: 3, Level: 1, Seq: 2, Tokens: 40, ChildIDs: ids(1020, 10)},
		{ID: 4, Level: 2, Seq: 0, Tokens: 40, ChildIDs: []int64{1, 2, 3}},
	})
	if p := s.plan(50, 5); !p.Done || !p.Fits {
		t.Fatalf("three chunks merged into one should fit: %+v", p)
	}
	// Two more chunks arrive: the partial merge no longer matches the
	// planned group of five, but the context still uses it.
	more := make([]int, 50)
	for i := range more {
		more[i] = 50
	}
	turns2 := refs(more...)
	chunks2, tail2 := planChunks(turns2, 500)
	sums := []conversation.NodeRef{
		{ID: 1, Level: 1, Seq: 0, Tokens: 40, ChildIDs: ids(1000, 10)},
		{ID: 2, Level: 1, Seq: 1, Tokens: 40, ChildIDs: ids(1010, 10)},
		{ID: 3, Level: 1, Seq: 2, Tokens: 40, ChildIDs: ids(1020, 10)},
		{ID: 5, Level: 1, Seq: 3, Tokens: 40, ChildIDs: ids(1030, 10)},
		{ID: 6, Level: 1, Seq: 4, Tokens: 40, ChildIDs: ids(1040, 10)},
		{ID: 4, Level: 2, Seq: 0, Tokens: 40, ChildIDs: []int64{1, 2, 3}},
	}
	s2 := newSnapshot(turns2, chunks2, tail2, sums)
	p := s2.plan(50, 5)
	if p.Done || len(p.Pending) != 1 || p.Pending[0].Level != 2 || len(p.Pending[0].ChildIDs) != 5 {
		t.Fatalf("want the group of five re-planned, got %+v pending %+v", p, p.Pending)
	}
	if got := itemTokens(s2.cover(5)); got != 40*3 {
		t.Errorf("cover uses the partial merge: %d tokens, want 120", got)
	}
}

func ids(from int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = from + int64(i)
	}
	return out
}

func TestFitFillsTheBudgetRecentTurnsThenSpecificSummaries(t *testing.T) {
	turns := make([]int, 100) // 10 chunks of 10 turns x 50 tokens
	for i := range turns {
		turns[i] = 50
	}
	_, s, _ := simulate(t, refs(turns...), 100, 5, 40)
	cover := s.cover(5)
	c := itemTokens(cover) // two level-2 nodes of 40
	tests := []struct {
		name          string
		budget        int
		wantTruncated bool
		wantRawTail   int
		// wantTop is the highest level left in the context.
		wantTop int
	}{
		{"too small", 50, true, 0, 2},
		{"exact cover", c, false, 0, 2},
		// Opening a level-2 node costs 5*40-40; a chunk 10*50-40. With
		// too little for a chunk's turns, both merges open into their
		// chunk summaries (more specific) rather than one.
		{"summaries before a partial chunk", c + 160 + 160, false, 0, 1},
		// Enough for one chunk's turns within rawShare of the budget: the
		// newest chunk is verbatim, every older part a chunk summary, and
		// what is left opens one more chunk.
		{"recent turns then summaries", 1700, false, 20, 1},
		{"whole conversation", 5000, false, 100, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, truncated := fit(cover, tt.budget)
			if truncated != tt.wantTruncated {
				t.Fatalf("truncated = %v", truncated)
			}
			if got := itemTokens(out); got > tt.budget {
				t.Errorf("%d tokens > budget %d", got, tt.budget)
			}
			raw, top := 0, 0
			for i := len(out) - 1; i >= 0 && out[i].level == 0; i-- {
				raw++
			}
			for _, it := range out {
				top = max(top, it.level)
			}
			if raw != tt.wantRawTail || top != tt.wantTop {
				t.Errorf("raw tail %d turns, top level %d; want %d, %d", raw, top, tt.wantRawTail, tt.wantTop)
			}
			if !truncated && (out[0].first != 0 || out[len(out)-1].last != 100) {
				t.Errorf("context must span the whole conversation: %d..%d", out[0].first, out[len(out)-1].last)
			}
		})
	}
}

func TestSearchTerms(t *testing.T) {
	tests := []struct {
		give string
		want []string
	}{
		{"Budget decision", []string{"budget", "decision"}},
		{"예산은 어떻게 결정했나요?", []string{"예산", "어떻게", "결정했나"}},
		{"What is the budget of the project?", []string{"budget", "project"}},
		{"a b c", nil},
		{"GPU, gpu; GPU!", []string{"gpu"}},
	}
	for _, tt := range tests {
		got := searchTerms(tt.give)
		if len(got) != len(tt.want) {
			t.Errorf("searchTerms(%q) = %q, want %q", tt.give, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("searchTerms(%q) = %q, want %q", tt.give, got, tt.want)
			}
		}
	}
}
