package local

import (
	"math"
	"slices"
)

// gap is a possible topic boundary between two consecutive content turns
// of the window: a new topic would start at content turn after.
type gap struct {
	after int     // window index of the content turn after the gap
	sim   float64 // smoothed block similarity across the gap
	depth float64 // TextTiling depth score
	score float64 // boundary score: depth plus cue and length evidence
}

// entry is one feature of a turn, its id local to the window.
type entry struct {
	id int32
	v  float64
}

// denseVecs interns the features of bags into window-local ids and returns
// each bag as a list of entries, plus the number of distinct features.
func denseVecs(bags []bag) ([][]entry, int) {
	ids := make(map[uint64]int32)
	vecs := make([][]entry, len(bags))
	for i, b := range bags {
		vec := make([]entry, 0, len(b))
		for _, f := range b {
			id, ok := ids[f.h]
			if !ok {
				id = int32(len(ids))
				ids[f.h] = id
			}
			vec = append(vec, entry{id: id, v: f.v})
		}
		vecs[i] = vec
	}
	return vecs, len(ids)
}

// block is a reusable dense accumulator of turn vectors.
type block struct {
	acc     []float64
	touched []int32
}

func newBlock(n int) *block { return &block{acc: make([]float64, n)} }

// fill sets the block to the sum of the unit vectors vecs[i]/norms[i] for
// i in idx, so that every turn weighs the same.
func (b *block) fill(vecs [][]entry, norms []float64, idx []int) {
	for _, id := range b.touched {
		b.acc[id] = 0
	}
	b.touched = b.touched[:0]
	for _, i := range idx {
		scale := 1 / norms[i]
		for _, e := range vecs[i] {
			if b.acc[e.id] == 0 {
				b.touched = append(b.touched, e.id)
			}
			b.acc[e.id] += e.v * scale
		}
	}
}

// cosine is the cosine similarity of two blocks, 0 when either is empty.
func (b *block) cosine(o *block) float64 {
	var dot, nb, no float64
	for _, id := range b.touched {
		x := b.acc[id]
		nb += x * x
		dot += x * o.acc[id]
	}
	for _, id := range o.touched {
		no += o.acc[id] * o.acc[id]
	}
	if nb == 0 || no == 0 {
		return 0
	}
	return dot / math.Sqrt(nb*no)
}

// gapScores computes, for each gap between consecutive content turns
// (window indices in content), the cosine between the block of content
// turns before it and the block after it, each grown turn by turn until it
// holds blockWords content words; the series is smoothed by a moving
// average of half-width smooth and each gap gets its depth score. right
// is the number of content words in the block after the gap.
func gapScores(bags []bag, words []int, content []int, blockWords, smooth int) (gaps []gap, right []int) {
	if len(content) < 2 {
		return nil, nil
	}
	vecs, nfeat := denseVecs(bags)
	norms := make([]float64, len(bags))
	for _, i := range content {
		norms[i] = bags[i].norm()
	}
	left, rightBlock := newBlock(nfeat), newBlock(nfeat)
	raw := make([]float64, len(content)-1)
	right = make([]int, len(raw))
	for j := range raw {
		lo, n := j, words[content[j]]
		for lo > 0 && n < blockWords {
			lo--
			n += words[content[lo]]
		}
		hi, m := j+1, words[content[j+1]]
		for hi+1 < len(content) && m < blockWords {
			hi++
			m += words[content[hi]]
		}
		right[j] = m
		left.fill(vecs, norms, content[lo:j+1])
		rightBlock.fill(vecs, norms, content[j+1:hi+1])
		raw[j] = left.cosine(rightBlock)
	}
	sims := movingAverage(raw, smooth)
	gaps = make([]gap, len(sims))
	for j, s := range sims {
		gaps[j] = gap{after: content[j+1], sim: s, depth: depth(sims, j)}

	}
	return gaps, right
}

// movingAverage smooths xs with a window of half-width h, shrinking the
// window at the ends.
func movingAverage(xs []float64, h int) []float64 {
	if h <= 0 {
		return slices.Clone(xs)
	}
	out := make([]float64, len(xs))
	for i := range xs {
		lo, hi := max(0, i-h), min(len(xs), i+h+1)
		s := 0.0
		for _, x := range xs[lo:hi] {
			s += x
		}
		out[i] = s / float64(hi-lo)
	}
	return out
}

// depth is Hearst's depth score of gap j: how far the similarity drops
// from the nearest peaks on either side, found by climbing while the
// similarity does not decrease.
func depth(sims []float64, j int) float64 {
	left := sims[j]
	for i := j - 1; i >= 0 && sims[i] >= left; i-- {
		left = sims[i]
	}
	right := sims[j]
	for i := j + 1; i < len(sims) && sims[i] >= right; i++ {
		right = sims[i]
	}
	return left + right - 2*sims[j]
}

// cutoff is the score a gap must exceed to be a boundary: mean − c·stdev
// of the gaps' scores, but never below floor.
func cutoff(gaps []gap, c, floor float64) float64 {
	if len(gaps) == 0 {
		return floor
	}
	mean := 0.0
	for _, g := range gaps {
		mean += g.score
	}
	mean /= float64(len(gaps))
	variance := 0.0
	for _, g := range gaps {
		variance += (g.score - mean) * (g.score - mean)
	}
	sd := math.Sqrt(variance / float64(len(gaps)))
	return math.Max(floor, mean-c*sd)
}
