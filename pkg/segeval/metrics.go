package segeval

import (
	"fmt"
	"math"
)

// Pk is the probability that two turns k apart are classified differently
// by ref and hyp: one puts them in the same segment and the other does not.
// It probes the pairs (i, i+k) for i in [0, n-k) and returns the fraction of
// disagreeing probes. k is clamped to [1, n-1]; fewer than two turns score
// 0. ref and hyp must have the same length.
func Pk(ref, hyp []int, k int) float64 {
	return probe(ref, hyp, k, func(r, h int) bool { return (r > 0) != (h > 0) })
}

// WindowDiff is the fraction of probes (i, i+k), i in [0, n-k), where ref
// and hyp place a different number of boundaries between the two turns.
// Unlike Pk it also penalises a wrong number of boundaries inside a probe.
// k is clamped like in Pk; ref and hyp must have the same length.
func WindowDiff(ref, hyp []int, k int) float64 {
	return probe(ref, hyp, k, func(r, h int) bool { return r != h })
}

// probe counts boundaries of ref and hyp inside each probe (i, i+k] and
// returns the fraction of probes for which differ reports true.
func probe(ref, hyp []int, k int, differ func(refBounds, hypBounds int) bool) float64 {
	if len(ref) != len(hyp) {
		panic(fmt.Sprintf("segeval: reference has %d labels, hypothesis %d", len(ref), len(hyp)))
	}
	n := len(ref)
	if n < 2 {
		return 0
	}
	k = min(max(k, 1), n-1)
	rb, hb := prefixBoundaries(ref), prefixBoundaries(hyp)
	errs := 0
	for i := 0; i+k < n; i++ {
		if differ(rb[i+k]-rb[i], hb[i+k]-hb[i]) {
			errs++
		}
	}
	return float64(errs) / float64(n-k)
}

// prefixBoundaries returns c with c[j] = the number of boundaries between
// turns 0 and j, so the boundaries between turns i and j (i < j) are
// c[j] - c[i].
func prefixBoundaries(labels []int) []int {
	c := make([]int, len(labels))
	for j := 1; j < len(labels); j++ {
		c[j] = c[j-1]
		if labels[j] != labels[j-1] {
			c[j]++
		}
	}
	return c
}

// DefaultK is the conventional probe width: half the mean segment length of
// the reference, rounded, and at least 2.
func DefaultK(ref []int) int {
	if len(ref) == 0 {
		return 2
	}
	segments := prefixBoundaries(ref)[len(ref)-1] + 1
	k := int(math.Round(float64(len(ref)) / float64(segments) / 2))
	return max(k, 2)
}

// Segments returns the number of segments in a labelling: the number of
// boundaries plus one, or 0 for no turns.
func Segments(labels []int) int {
	if len(labels) == 0 {
		return 0
	}
	return prefixBoundaries(labels)[len(labels)-1] + 1
}
