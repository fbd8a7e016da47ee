package meetingctx

import (
	"math"
	"slices"
	"sync"

	"github.com/mithub/mithub/pkg/textutil"
)

// termIDs interns search terms process-wide, so each topic's index is a
// compact sorted slice of (id, tf) pairs instead of a map of strings.
var termIDs = struct {
	sync.RWMutex
	m map[string]uint32
}{m: map[string]uint32{}}

func termID(t string, add bool) (uint32, bool) {
	termIDs.RLock()
	id, ok := termIDs.m[t]
	termIDs.RUnlock()
	if ok || !add {
		return id, ok
	}
	termIDs.Lock()
	defer termIDs.Unlock()
	if id, ok = termIDs.m[t]; ok {
		return id, true
	}
	id = uint32(len(termIDs.m) + 1)
	termIDs.m[t] = id
	return id, true
}

type termFreq struct {
	id uint32
	tf uint32
}

// termVector is a bag of terms sorted by id, with its total length.
type termVector struct {
	terms []termFreq
	n     int
}

func indexTurns(turns []Turn) termVector {
	var words []string
	for _, t := range turns {
		words = textutil.Terms(words, t.Text)
	}
	return indexTerms(words, true)
}

func indexTerms(words []string, add bool) termVector {
	ids := make([]uint32, 0, len(words))
	for _, w := range words {
		if id, ok := termID(w, add); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var v termVector
	for _, id := range ids {
		if k := len(v.terms); k > 0 && v.terms[k-1].id == id {
			v.terms[k-1].tf++
		} else {
			v.terms = append(v.terms, termFreq{id: id, tf: 1})
		}
	}
	v.terms = slices.Clip(v.terms)
	v.n = len(ids)
	return v
}

// merge returns the sum of two vectors.
func (v termVector) merge(o termVector) termVector {
	out := termVector{terms: make([]termFreq, 0, len(v.terms)+len(o.terms)), n: v.n + o.n}
	i, j := 0, 0
	for i < len(v.terms) || j < len(o.terms) {
		switch {
		case j == len(o.terms) || i < len(v.terms) && v.terms[i].id < o.terms[j].id:
			out.terms = append(out.terms, v.terms[i])
			i++
		case i == len(v.terms) || o.terms[j].id < v.terms[i].id:
			out.terms = append(out.terms, o.terms[j])
			j++
		default:
			out.terms = append(out.terms, termFreq{id: v.terms[i].id, tf: v.terms[i].tf + o.terms[j].tf})
			i++
			j++
		}
	}
	out.terms = slices.Clip(out.terms)
	return out
}

func (v termVector) tf(id uint32) uint32 {
	i, ok := slices.BinarySearchFunc(v.terms, id, func(t termFreq, id uint32) int {
		switch {
		case t.id < id:
			return -1
		case t.id > id:
			return 1
		}
		return 0
	})
	if !ok {
		return 0
	}
	return v.terms[i].tf
}

// bm25 scores each document against the query terms.
func bm25(docs []termVector, query termVector) []float64 {
	scores := make([]float64, len(docs))
	if len(docs) == 0 || len(query.terms) == 0 {
		return scores
	}
	total := 0
	for _, d := range docs {
		total += d.n
	}
	avgdl := math.Max(float64(total)/float64(len(docs)), 1)
	for _, q := range query.terms {
		df := 0
		for _, d := range docs {
			if d.tf(q.id) > 0 {
				df++
			}
		}
		if df == 0 {
			continue
		}
		for i, d := range docs {
			scores[i] += textutil.BM25(int(d.tf(q.id)), df, len(docs), float64(d.n), avgdl)
		}
	}
	return scores
}
