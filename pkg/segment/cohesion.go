package segment

import (
	"math"
)

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
