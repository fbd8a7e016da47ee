package meetingctx

// PackedVecs are the embeddings of a run of turns as turn search keeps
// them between searches, with each vector's length computed once. A
// vector with fewer non-zero entries than half its length (the local
// embedder's hashed bags of words) is kept by those entries, inverted:
// for each dimension, the turns with an entry there, so a search
// multiplies only where the query and a turn both have an entry, reading
// one contiguous list per query dimension instead of every turn's
// entries. Any other vector is kept whole.
type PackedVecs struct {
	dim   int         // every vector's dimension (0: none has any)
	norm  []float64   // per turn; 0: no embedding
	dense [][]float32 // per turn, nil unless kept whole
	// Dimension d's entries are turn[start[d]:start[d+1]] with
	// value[start[d]:start[d+1]], in turn order.
	start []int32
	turn  []uint32
	value []float32
}

// PackVecs packs the embeddings of a run of turns (nil or empty: the turn
// has none). The run has the dimension of its first embedding; a vector
// of another dimension counts as none, as it does against a query of
// that first dimension.
func PackVecs(vecs [][]float32) *PackedVecs {
	p := &PackedVecs{norm: make([]float64, len(vecs)), dense: make([][]float32, len(vecs))}
	for _, v := range vecs {
		if len(v) > 0 {
			p.dim = len(v)
			break
		}
	}
	counts := make([]int32, p.dim+1)
	sparse := make([]bool, len(vecs))
	for i, v := range vecs {
		if len(v) != p.dim || p.dim == 0 {
			continue
		}
		p.norm[i] = VecNorm(v)
		if nonzero(v) == nil {
			p.dense[i] = v
			continue
		}
		sparse[i] = true
		for d, x := range v {
			if x != 0 {
				counts[d+1]++
			}
		}
	}
	p.start = make([]int32, p.dim+1)
	for d := range p.dim {
		p.start[d+1] = p.start[d] + counts[d+1]
	}
	p.turn = make([]uint32, p.start[p.dim])
	p.value = make([]float32, p.start[p.dim])
	next := counts[:p.dim]
	copy(next, p.start[:p.dim])
	for i, v := range vecs {
		if !sparse[i] {
			continue
		}
		for d, x := range v {
			if x != 0 {
				p.turn[next[d]], p.value[next[d]] = uint32(i), x
				next[d]++
			}
		}
	}
	return p
}

// Len is the number of turns of the run.
func (p *PackedVecs) Len() int { return len(p.norm) }

// Bytes estimates the memory p holds.
func (p *PackedVecs) Bytes() int {
	n := 5*24 + 8 + 8*len(p.norm) + 24*len(p.dense) + 4*len(p.start) + 8*len(p.turn)
	for _, v := range p.dense {
		n += 4 * len(v)
	}
	return n
}

// cosines sets out[i] to the cosine of the query q (of length qn > 0,
// non-zero entries nz when sparse, else nil) and turn i's embedding where
// it is positive, and leaves out[i] alone elsewhere. Each cosine is
// cosineOf's to the bit: its products are added in order of the
// dimension into one partial sum per parity, only those that are zero
// left out. acc is scratch of at least 2×Len() entries.
func (p *PackedVecs) cosines(q []float32, qn float64, nz []int, out []float64, acc []float32) {
	if p.dim != len(q) {
		return
	}
	acc = acc[:2*p.Len()]
	clear(acc)
	add := func(d int) {
		qd, par := q[d], uint32(d&1)
		lo, hi := p.start[d], p.start[d+1]
		for k, t := range p.turn[lo:hi] {
			acc[2*t+par] += qd * p.value[lo+int32(k)]
		}
	}
	if nz != nil {
		for _, d := range nz {
			add(d)
		}
	} else {
		for d, x := range q {
			if x != 0 {
				add(d)
			}
		}
	}
	for i, n := range p.norm {
		if n == 0 {
			continue
		}
		var c float64
		if v := p.dense[i]; v != nil {
			c, _ = cosineOf(q, qn, v, n, nz)
		} else {
			c = float64(acc[2*i]+acc[2*i+1]) / (qn * n)
		}
		if c > 0 {
			out[i] = c
		}
	}
}

// PackedRun places a run of packed embeddings in a search: they are the
// embeddings of turns At, At+1, … of the query.
type PackedRun struct {
	At   int
	Vecs *PackedVecs
}
