package meetingctx

import (
	"context"
	"sort"

	"github.com/mithub/mithub/pkg/textutil"
)

// ScoredTopic is a search hit. Score is the reciprocal-rank fusion of the
// cosine and BM25 rankings; Cosine and BM25 are the raw scores (0 when the
// topic is absent from that ranking).
type ScoredTopic struct {
	Topic
	Score  float64 `json:"score"`
	Cosine float64 `json:"cosine"`
	BM25   float64 `json:"bm25"`
}

// rrfK is the reciprocal-rank fusion constant.
const rrfK = 60

// Search ranks the meeting's topics for a query: cosine similarity of the
// query embedding to topic embeddings (hits below the threshold dropped)
// fused with BM25 over each topic's turns. With neither signal, the most
// recent topics come back with score 0. k <= 0 takes the configured top-k.
func (m *Manager) Search(ctx context.Context, query string, k int) ([]ScoredTopic, error) {
	if k <= 0 {
		k = m.cfg.SearchTopK
	}
	// A failed query embedding degrades to lexical search.
	qvec, _ := m.eng.EmbedQuery(ctx, query)
	q := indexTerms(textutil.Terms(nil, query), false)

	m.mu.Lock()
	topics := copyTopics(m.topics)
	lex := bm25(m.lex, q)
	m.mu.Unlock()
	return fuse(topics, qvec, lex, m.cfg.SearchThreshold, k), nil
}

// RRF fuses ranked lists: an item's score is the sum over lists of
// 1/(60 + rank), ranks from 1. Keys identify items across lists.
func RRF(lists ...[]string) map[string]float64 {
	out := map[string]float64{}
	for _, l := range lists {
		for r, k := range l {
			out[k] += 1.0 / float64(rrfK+r+1)
		}
	}
	return out
}

// fuse ranks topics by reciprocal-rank fusion of cosine and BM25.
func fuse(topics []Topic, qvec []float32, lex []float64, threshold float64, k int) []ScoredTopic {
	hits := make([]ScoredTopic, len(topics))
	var byCos, byLex []int
	for i, t := range topics {
		hits[i] = ScoredTopic{Topic: t, BM25: lex[i]}
		if c, ok := cosine(qvec, t.Embedding); ok && c >= threshold {
			hits[i].Cosine = c
			byCos = append(byCos, i)
		}
		if lex[i] > 0 {
			byLex = append(byLex, i)
		}
	}
	sort.SliceStable(byCos, func(a, b int) bool { return hits[byCos[a]].Cosine > hits[byCos[b]].Cosine })
	sort.SliceStable(byLex, func(a, b int) bool { return hits[byLex[a]].BM25 > hits[byLex[b]].BM25 })
	for r, i := range byCos {
		hits[i].Score += 1.0 / float64(rrfK+r+1)
	}
	for r, i := range byLex {
		hits[i].Score += 1.0 / float64(rrfK+r+1)
	}
	var out []ScoredTopic
	for _, h := range hits {
		if h.Score > 0 {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		// Nothing matched: the most recent topics, unscored.
		for i := len(hits) - 1; i >= 0 && len(out) < k; i-- {
			out = append(out, hits[i])
		}
		return out
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	if len(out) > k {
		out = out[:k]
	}
	for i := range out {
		out[i].Embedding = nil
	}
	return out
}
