package segeval_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mithub/mithub/pkg/segeval"
)

// labels turns a string of digits into labels: "0001" → [0 0 0 1].
func labels(s string) []int {
	out := make([]int, len(s))
	for i, r := range s {
		out[i] = int(r - '0')
	}
	return out
}

func TestPkAndWindowDiff(t *testing.T) {
	// Ten turns with one reference boundary between turns 4 and 5; with
	// k = 2 there are 8 probes (i, i+2) and the reference has a boundary
	// inside probes i = 3 and i = 4.
	const ref = "0000011111"
	tests := []struct {
		name   string
		give   string // hypothesis
		k      int
		wantPk float64
		wantWD float64
	}{
		{name: "identical", give: ref, k: 2, wantPk: 0, wantWD: 0},
		{name: "same boundaries, other labels", give: "5555522222", k: 2, wantPk: 0, wantWD: 0},
		// Probes 3 and 4 miss the reference boundary.
		{name: "all one segment", give: "0000000000", k: 2, wantPk: 2.0 / 8, wantWD: 2.0 / 8},
		// Hypothesis boundary one turn late: probes 3 and 5 disagree.
		{name: "near miss", give: "0000001111", k: 2, wantPk: 2.0 / 8, wantWD: 2.0 / 8},
		// An extra boundary right after the true one: Pk sees only probe
		// 5 (no reference boundary); WindowDiff also counts probe 4, which
		// holds two hypothesis boundaries against one.
		{name: "extra close boundary", give: "0000012222", k: 2, wantPk: 1.0 / 8, wantWD: 2.0 / 8},
		// A boundary after every turn: every probe holds a hypothesis
		// boundary, 6 of 8 hold no reference one; every count differs.
		{name: "every turn a segment", give: "0123456789", k: 2, wantPk: 6.0 / 8, wantWD: 8.0 / 8},
		// Far-off boundary: disagree on probes 3, 4 (missed) and 0, 1
		// (false, boundary between turns 1 and 2).
		{name: "false and missed", give: "0011111111", k: 2, wantPk: 4.0 / 8, wantWD: 4.0 / 8},
		// k = 1 compares neighbours: only the two boundaries' gaps differ.
		{name: "k one", give: "0000001111", k: 1, wantPk: 2.0 / 9, wantWD: 2.0 / 9},
		// k beyond the length is clamped to n-1: one probe (0, 9).
		{name: "k clamped", give: "0000000000", k: 50, wantPk: 1, wantWD: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, h := labels(ref), labels(tt.give)
			if got := segeval.Pk(r, h, tt.k); !near(got, tt.wantPk) {
				t.Errorf("Pk = %v, want %v", got, tt.wantPk)
			}
			if got := segeval.WindowDiff(r, h, tt.k); !near(got, tt.wantWD) {
				t.Errorf("WindowDiff = %v, want %v", got, tt.wantWD)
			}
		})
	}
}

func TestRepeatedLabelOpensNewSegment(t *testing.T) {
	// Label 0 returns after label 1: two boundaries, three segments.
	ref := labels("001100")
	hyp := labels("000000")
	// Probes (i, i+2), i = 0..3: all hold a reference boundary.
	if got := segeval.Pk(ref, hyp, 2); !near(got, 1) {
		t.Errorf("Pk = %v, want 1", got)
	}
	if got := segeval.Segments(ref); got != 3 {
		t.Errorf("Segments = %d, want 3", got)
	}
}

func TestShortInputs(t *testing.T) {
	tests := []struct {
		name     string
		ref, hyp []int
	}{
		{name: "empty"},
		{name: "one turn", ref: []int{0}, hyp: []int{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := segeval.Pk(tt.ref, tt.hyp, 2); got != 0 {
				t.Errorf("Pk = %v, want 0", got)
			}
			if got := segeval.WindowDiff(tt.ref, tt.hyp, 2); got != 0 {
				t.Errorf("WindowDiff = %v, want 0", got)
			}
		})
	}
}

func TestLengthMismatchPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for labels of different lengths")
		}
	}()
	segeval.Pk([]int{0, 0, 1}, []int{0, 0}, 1)
}

func TestDefaultK(t *testing.T) {
	tests := []struct {
		name string
		give []int
		want int
	}{
		{name: "empty", give: nil, want: 2},
		// 10 turns, 2 segments: mean 5, half 2.5 rounds to 3.
		{name: "two segments", give: labels("0000011111"), want: 3},
		// 12 turns, 2 segments: half of 6.
		{name: "even", give: labels("000000111111"), want: 3},
		// 6 turns, 3 segments: half of 2 is 1, raised to 2.
		{name: "at least two", give: labels("001122"), want: 2},
		{name: "one segment", give: labels("00000000000000000000"), want: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := segeval.DefaultK(tt.give); got != tt.want {
				t.Errorf("DefaultK = %d, want %d", got, tt.want)
			}
		})
	}
}

// randomLabels returns n labels with boundaries placed with probability p.
func randomLabels(rng *rand.Rand, n int, p float64) []int {
	out := make([]int, n)
	for i := 1; i < n; i++ {
		out[i] = out[i-1]
		if rng.Float64() < p {
			out[i]++
		}
	}
	return out
}

func TestMetricProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 500 {
		n := 1 + rng.IntN(300)
		ref := randomLabels(rng, n, rng.Float64()*0.2)
		hyp := randomLabels(rng, n, rng.Float64()*0.2)
		k := 1 + rng.IntN(60)
		pk, wd := segeval.Pk(ref, hyp, k), segeval.WindowDiff(ref, hyp, k)
		switch {
		case pk < 0 || pk > 1 || wd < 0 || wd > 1:
			t.Fatalf("trial %d: Pk %v, WindowDiff %v outside [0, 1]", trial, pk, wd)
		case wd < pk:
			// A probe where Pk disagrees has 0 boundaries on one side
			// and some on the other, so WindowDiff disagrees too.
			t.Fatalf("trial %d: WindowDiff %v below Pk %v", trial, wd, pk)
		case segeval.Pk(hyp, ref, k) != pk || segeval.WindowDiff(hyp, ref, k) != wd:
			t.Fatalf("trial %d: metrics not symmetric", trial)
		case segeval.Pk(ref, ref, k) != 0 || segeval.WindowDiff(ref, ref, k) != 0:
			t.Fatalf("trial %d: identical segmentations score above 0", trial)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
