package segeval_test

import (
	"testing"

	"github.com/mithub/mithub/pkg/segeval"
)

func TestBoundaryPRF(t *testing.T) {
	ref := labels("0000111111222222") // boundaries at turns 4 and 10
	for _, tc := range []struct {
		name    string
		hyp     string
		tol     int
		p, r, f float64
	}{
		{"exact", "0000111111222222", 3, 1, 1, 1},
		{"both within tolerance", "0000000111111222", 3, 1, 1, 1},    // 7 and 13
		{"one of two found", "0000000011111111", 3, 1, 0.5, 2.0 / 3}, // 8
		{"no hypothesis boundary", "0000000000000000", 3, 1, 0, 0},
		{"off by one, zero tolerance", "0000011111122222", 0, 0, 0, 0},              // 5 and 11
		{"two hypotheses near one reference", "0001222222222222", 3, 0.5, 0.5, 0.5}, // 3 and 4
		{"far away", "0000000000000001", 3, 0, 0, 0},                                // 15
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, r, f := segeval.BoundaryPRF(ref, labels(tc.hyp), tc.tol)
			if !near(p, tc.p) || !near(r, tc.r) || !near(f, tc.f) {
				t.Errorf("BoundaryPRF = %.3f %.3f %.3f, want %.3f %.3f %.3f", p, r, f, tc.p, tc.r, tc.f)
			}
		})
	}
}

func TestBoundaryPRFNoReferenceBoundary(t *testing.T) {
	ref := labels("00000000")
	if p, r, f := segeval.BoundaryPRF(ref, ref, 3); p != 1 || r != 1 || f != 1 {
		t.Errorf("no boundaries on either side: %v %v %v, want 1 1 1", p, r, f)
	}
	if p, r, f := segeval.BoundaryPRF(ref, labels("00001111"), 3); p != 0 || r != 1 || f != 0 {
		t.Errorf("false alarm only: %v %v %v, want 0 1 0", p, r, f)
	}
}

func TestBoundaryPRFLengthMismatchPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for labellings of different lengths")
		}
	}()
	segeval.BoundaryPRF([]int{0, 1}, []int{0}, 3)
}
