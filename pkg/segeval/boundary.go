package segeval

import "fmt"

// BoundaryTolerance is the conventional tolerance of BoundaryPRF: a
// hypothesised boundary within three turns of a reference one matches it.
const BoundaryTolerance = 3

// BoundaryPRF compares the boundaries of two labellings (a boundary is a
// turn whose label differs from the turn before it). A hypothesis boundary
// matches a reference boundary at most tol turns away; each boundary
// matches at most once, nearest pairs first, so two hypothesis boundaries
// next to one reference boundary count one hit and one false alarm.
// Precision is the matched share of the hypothesis boundaries (1 when there
// are none), recall the matched share of the reference boundaries (1 when
// there are none) and f1 their harmonic mean (0 when both are 0). ref and
// hyp must have the same length; a negative tol is taken as 0.
func BoundaryPRF(ref, hyp []int, tol int) (precision, recall, f1 float64) {
	if len(ref) != len(hyp) {
		panic(fmt.Sprintf("segeval: reference has %d labels, hypothesis %d", len(ref), len(hyp)))
	}
	tol = max(tol, 0)
	rb, hb := boundaryTurns(ref), boundaryTurns(hyp)
	usedR := make([]bool, len(rb))
	usedH := make([]bool, len(hb))
	matched := 0
	// Nearest pairs first: distance 0, then 1, ... up to tol.
	for d := 0; d <= tol; d++ {
		for i, h := range hb {
			if usedH[i] {
				continue
			}
			for j, r := range rb {
				if !usedR[j] && (h-r == d || r-h == d) {
					usedH[i], usedR[j] = true, true
					matched++
					break
				}
			}
		}
	}
	precision, recall = 1, 1
	if len(hb) > 0 {
		precision = float64(matched) / float64(len(hb))
	}
	if len(rb) > 0 {
		recall = float64(matched) / float64(len(rb))
	}
	if precision+recall > 0 {
		f1 = 2 * precision * recall / (precision + recall)
	}
	return precision, recall, f1
}

// boundaryTurns returns the turns that open a new segment, ascending.
func boundaryTurns(labels []int) []int {
	var out []int
	for i := 1; i < len(labels); i++ {
		if labels[i] != labels[i-1] {
			out = append(out, i)
		}
	}
	return out
}
