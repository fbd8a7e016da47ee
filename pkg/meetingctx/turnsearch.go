package meetingctx

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/mithub/mithub/pkg/textutil"
)

// TurnHit is a turn found by turn search, with its fused score and the
// topic that holds it ("" for a turn not yet in a topic).
type TurnHit struct {
	Turn
	Score   float64 `json:"score"`
	TopicID string  `json:"topic_id"`
}

// TurnWeights fuse the per-turn features of turn search into one score:
// a weighted sum of
//
//	BM25      the turn's BM25 against the query (textutil.Stemmed terms:
//	          "buttons" finds "button"), over the max in the meeting
//	BM25Ctx   the mean of that over the turns within Window of it
//	Embed     the cosine of query and turn embeddings (negatives as 0),
//	          over the max in the meeting
//	EmbedCtx  the mean of that over the turns within Window of it
//	Prior     the topic search score of the turn's topic, over the best
//	          topic's (0 for a topic the query does not match)
//	Length    log(1 + words of the turn) / log(1 + 100), capped at 1
//	BM25Wide  the mean of BM25 over the turns within 3×Window of it
//	Speaker   1 when the query names the turn's speaker ("What did
//	          Marketing think of …", "김민수님이 … 뭐라고 했어?"), else 0
//
// Every feature is in [0, 1] and relative to the meeting, so weights
// learned on one set of meetings carry to others. The shipped weights
// (turnweights.json) are learned by `make train-retrieval`.
type TurnWeights struct {
	BM25     float64 `json:"bm25"`
	BM25Ctx  float64 `json:"bm25_ctx"`
	Embed    float64 `json:"embed"`
	EmbedCtx float64 `json:"embed_ctx"`
	Prior    float64 `json:"prior"`
	Length   float64 `json:"length"`
	// BM25Wide is the mean of BM25 over the turns within 3×Window.
	BM25Wide float64 `json:"bm25_wide"`
	// Speaker weighs turns by the speaker the query names.
	Speaker float64 `json:"speaker"`
	// Window is the half-width, in turns, of the context features.
	Window int `json:"window"`
	// QueryStop are question words dropped from the query before BM25
	// ("discuss", "what", ...): learned as the terms frequent across the
	// training queries, they say how a question is asked, not what about.
	QueryStop []string `json:"query_stopwords,omitempty"`
}

// TurnFeatureCount is the number of features a TurnWeights weighs.
const TurnFeatureCount = 8

// Vector returns the weights in feature order.
func (w TurnWeights) Vector() [TurnFeatureCount]float64 {
	return [TurnFeatureCount]float64{w.BM25, w.BM25Ctx, w.Embed, w.EmbedCtx, w.Prior, w.Length, w.BM25Wide, w.Speaker}
}

// WithVector returns w with the weights of v in feature order.
func (w TurnWeights) WithVector(v [TurnFeatureCount]float64) TurnWeights {
	w.BM25, w.BM25Ctx, w.Embed, w.EmbedCtx, w.Prior, w.Length, w.BM25Wide, w.Speaker = v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	return w
}

//go:embed turnweights.json
var turnWeightsJSON []byte

// DefaultTurnWeights are the shipped, learned weights.
var DefaultTurnWeights = mustTurnWeights(turnWeightsJSON)

func mustTurnWeights(b []byte) TurnWeights {
	w, err := ParseTurnWeights(b)
	if err != nil {
		panic(err)
	}
	return w
}

// ParseTurnWeights reads weights in the format of turnweights.json.
func ParseTurnWeights(b []byte) (TurnWeights, error) {
	var w TurnWeights
	if err := json.Unmarshal(b, &w); err != nil {
		return TurnWeights{}, fmt.Errorf("turn weights: %w", err)
	}
	if w.Window < 0 || w.Window > 50 {
		return TurnWeights{}, fmt.Errorf("turn weights: window %d outside 0..50", w.Window)
	}
	return w, nil
}

// TurnQuery is one turn search over a meeting's turns.
type TurnQuery struct {
	// Query is the question; its terms are scored with BM25, and the
	// speakers it names are looked for among the turns' speakers.
	Query string
	// QueryVec is the query's embedding (nil: no embedding leg).
	QueryVec []float32
	// Turns are the searched turns, in seq order.
	Turns []Turn
	// Vecs[i] is the embedding of Turns[i] (nil or short: none).
	Vecs [][]float32
	// Packed, when given, holds the turns' embeddings packed once where
	// they are kept (PackVecs), in runs of turns; a turn in no run has no
	// embedding, and Vecs is not read.
	Packed []PackedRun
	// Topics and TopicScores give the prior: a turn inside Topics[j]
	// gets TopicScores[j]. Both may be empty.
	Topics      []Topic
	TopicScores []float64
	// Indexed, when set, gives the turns' search terms (as
	// textutil.Stemmed makes them) from an index built once, so turns are
	// not tokenised again for every query.
	Indexed TurnTerms
	// MinCosine is the similarity at which the embedding alone makes a
	// turn a hit; below it a turn needs a query term in it or near it.
	MinCosine float64
}

// TurnTerms are the search terms of a query's turns, indexed once.
type TurnTerms interface {
	// Terms is the number of search terms of turn i, repeats counted.
	Terms(i int) int
	// Count calls add(i, j, n) for every turn i whose stemmed terms
	// have the query's stemmed term qterms[j], n times (n > 0), at most
	// once per (i, j); the order of the calls is free.
	Count(qterms []string, add func(i, j, n int))
}

// TurnReach reports, per turn, whether the query reaches it: a query term
// in the turn or within window turns of it, or an embedding similarity of
// at least q.MinCosine. Only reached turns are hits; the rest of the
// features only order them.
func TurnReach(q TurnQuery, w TurnWeights) []bool {
	reach := make([]bool, len(q.Turns))
	turnScores(q, w, func(i int, _ *[TurnFeatureCount]float64, reached bool) { reach[i] = reached })
	return reach
}

// TurnFeatures computes the features of every turn of q, in the order of
// TurnWeights.Vector, with w's window and query stopwords.
func TurnFeatures(q TurnQuery, w TurnWeights) [][TurnFeatureCount]float64 {
	feats := make([][TurnFeatureCount]float64, len(q.Turns))
	turnScores(q, w, func(i int, f *[TurnFeatureCount]float64, _ bool) { feats[i] = *f })
	return feats
}

// turnScores computes the features and the reach of every turn of q and
// hands them to each, turn by turn, in order; the features it points to
// are overwritten for the next turn.
func turnScores(q TurnQuery, w TurnWeights, each func(i int, f *[TurnFeatureCount]float64, reached bool)) {
	window := w.Window
	n := len(q.Turns)
	if n == 0 {
		return
	}
	sc := scratchPool.Get().(*scoreScratch)
	defer scratchPool.Put(sc)
	sc.reach = zeroed(sc.reach, n)
	reach := sc.reach
	sc.lens = turnLengths(sc.lens, q)
	lens := sc.lens
	lex := turnBM25(sc, q, lens, w.QueryStop)
	sc.cos = zeroed(sc.cos, n)
	cos := sc.cos
	if qn := norm(q.QueryVec); qn > 0 {
		nz := nonzero(q.QueryVec)
		if q.Packed != nil {
			for _, r := range q.Packed {
				if r.Vecs == nil || r.At < 0 || r.At+r.Vecs.Len() > n {
					continue
				}
				sc.acc = slices.Grow(sc.acc[:0], 2*r.Vecs.Len())
				r.Vecs.cosines(q.QueryVec, qn, nz, cos[r.At:], sc.acc[:2*r.Vecs.Len()])
			}
		} else {
			for i := range min(n, len(q.Vecs)) {
				if c, ok := cosineOf(q.QueryVec, qn, q.Vecs[i], VecNorm(q.Vecs[i]), nz); ok && c > 0 {
					cos[i] = c
				}
			}
		}
		for i, c := range cos {
			reach[i] = c > 0 && c >= q.MinCosine
		}
	}
	normalize(lex)
	normalize(cos)
	sc.prefix = zeroed(sc.prefix, n+1)
	prefixSums(sc.prefix, lex)
	sc.lexCtx = windowMean(sc.lexCtx, sc.prefix, window)
	sc.lexWide = windowMean(sc.lexWide, sc.prefix, 3*window)
	prefixSums(sc.prefix, cos)
	sc.cosCtx = windowMean(sc.cosCtx, sc.prefix, window)
	lexCtx, cosCtx, lexWide := sc.lexCtx, sc.cosCtx, sc.lexWide
	sc.prior = turnPrior(zeroed(sc.prior, n), q.Turns, q.Topics, q.TopicScores)
	prior := sc.prior
	sc.named = speakerNamed(zeroed(sc.named, n), q)
	named := sc.named
	var f [TurnFeatureCount]float64 // one for every turn: each must not keep it
	for i := range q.Turns {
		length := math.Min(math.Log1p(float64(lens[i]))/math.Log1p(100), 1)
		f = [TurnFeatureCount]float64{lex[i], lexCtx[i], cos[i], cosCtx[i], prior[i], length, lexWide[i], named[i]}
		each(i, &f, reach[i] || lexCtx[i] > 0)
	}
}

// ScoreTurns scores every turn of q with w.
func ScoreTurns(q TurnQuery, w TurnWeights) []float64 {
	feats := TurnFeatures(q, w)
	wv := w.Vector()
	scores := make([]float64, len(feats))
	for i, f := range feats {
		for j := range f {
			scores[i] += wv[j] * f[j]
		}
	}
	return scores
}

// RankTurns returns the k best turns of q under w, best first; ties go to
// the earlier turn. A query that matches nothing (no term, no similar
// turn) returns no hits.
func RankTurns(q TurnQuery, w TurnWeights, k int) []TurnHit {
	wv := w.Vector()
	buf := candPool.Get().(*[]rankedTurn)
	defer candPool.Put(buf)
	cands := (*buf)[:0]
	turnScores(q, w, func(i int, f *[TurnFeatureCount]float64, reached bool) {
		if !reached {
			return
		}
		s := 0.0
		for j := range f {
			s += wv[j] * f[j]
		}
		cands = append(cands, rankedTurn{i, s})
	})
	*buf = cands[:0]
	cands = bestTurns(cands, k)
	out := make([]TurnHit, len(cands))
	for j, c := range cands {
		out[j] = TurnHit{Turn: q.Turns[c.i], Score: c.score, TopicID: topicOf(q.Topics, q.Turns[c.i].Seq)}
	}
	return out
}

// rankedTurn is a turn's index in a search and its score.
type rankedTurn struct {
	i     int
	score float64
}

// compareTurns orders ranked turns best first, ties by the earlier turn.
func compareTurns(a, b rankedTurn) int {
	return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.i, b.i))
}

// before reports whether a comes before b in compareTurns' order.
func (a rankedTurn) before(b rankedTurn) bool { return compareTurns(a, b) < 0 }

// bestTurns returns the k best of cands (every one for k <= 0), best
// first, ties by the earlier turn; cands, in turn order, is reused. With
// k below len(cands) it keeps a heap of the k best, O(n log k), instead
// of sorting every candidate.
func bestTurns(cands []rankedTurn, k int) []rankedTurn {
	if k <= 0 || k >= len(cands) {
		slices.SortFunc(cands, compareTurns)
		return cands
	}
	// h[0] is the worst of the k best so far: a heap ordered by before,
	// reversed.
	h := cands[:k:k]
	worse := func(a, b int) bool { return h[b].before(h[a]) }
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= k {
				return
			}
			if c+1 < k && worse(c+1, c) {
				c++
			}
			if !worse(c, i) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	// h aliases cands[:k], so the heap is built in place; later
	// candidates come from cands[k:], which h never grows into.
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, c := range cands[k:] {
		if c.before(h[0]) {
			h[0] = c
			down(0)
		}
	}
	return bestTurns(h, 0)
}

// turnLengths counts each turn's search terms, into out (resized).
func turnLengths(out []int, q TurnQuery) []int {
	out = zeroed(out, len(q.Turns))
	var buf []string
	for i, t := range q.Turns {
		if q.Indexed != nil {
			out[i] = q.Indexed.Terms(i)
			continue
		}
		buf = textutil.Terms(buf[:0], t.Text)
		out[i] = len(buf)
	}
	return out
}

// turnBM25 scores each turn as a document against the query's stemmed
// terms (less stop, unless nothing else is left).
func turnBM25(sc *scoreScratch, q TurnQuery, lens []int, stop []string) []float64 {
	turns := q.Turns
	sc.lex = zeroed(sc.lex, len(turns))
	scores := sc.lex
	qterms := map[string]bool{}
	for _, w := range textutil.Stemmed(nil, q.Query) {
		qterms[w] = true
	}
	// Question words go, unless the question is made of nothing else.
	kept := map[string]bool{}
	for w := range qterms {
		if !slices.Contains(stop, w) {
			kept[w] = true
		}
	}
	if len(kept) > 0 {
		qterms = kept
	}
	if len(qterms) == 0 {
		return scores
	}
	qlist := make([]string, 0, len(qterms))
	for w := range qterms {
		qlist = append(qlist, w)
	}
	slices.Sort(qlist)
	nq := len(qlist)
	sc.tf = zeroed(sc.tf, len(turns)*nq) // tf[i*nq+j]: count of qlist[j] in turn i
	sc.df = zeroed(sc.df, nq)
	tf, df := sc.tf, sc.df
	total := 0.0
	for i := range turns {
		total += float64(lens[i])
	}
	if q.Indexed != nil {
		q.Indexed.Count(qlist, func(i, j, n int) {
			tf[i*nq+j] = int32(n)
			df[j]++
		})
	} else {
		var words []string
		for i, t := range turns {
			words = textutil.Stemmed(words[:0], t.Text)
			for _, w := range words {
				if j, ok := slices.BinarySearch(qlist, w); ok {
					if tf[i*nq+j] == 0 {
						df[j]++
					}
					tf[i*nq+j]++
				}
			}
		}
	}
	avg := math.Max(total/float64(len(turns)), 1)
	for i := range turns {
		for j, f := range tf[i*nq : (i+1)*nq] {
			if f > 0 {
				scores[i] += textutil.BM25(int(f), df[j], len(turns), float64(lens[i]), avg)
			}
		}
	}
	return scores
}

// norm is the Euclidean length of a query's embedding.
func norm(v []float32) float64 {
	var s float32
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(float64(s))
}

// VecNorm is the Euclidean length of a turn's embedding, as turn search
// computes it.
func VecNorm(v []float32) float64 {
	return math.Sqrt(float64(dot(v, v)))
}

// dot is the dot product of a and b (of a's length or more), summed
// into one partial sum per parity of the index, then added; cosineOf and
// PackedVecs.cosines rely on that order.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var d0, d1 float32
	i := 0
	for ; i+1 < len(a); i += 2 {
		d0 += a[i] * b[i]
		d1 += a[i+1] * b[i+1]
	}
	if i < len(a) {
		d0 += a[i] * b[i]
	}
	return d0 + d1
}

// nonzero returns the indexes of q's non-zero entries when they are
// fewer than half of them (a sparse vector, as the local embedder's
// hashed bags of words are), else nil.
func nonzero(q []float32) []int {
	var out []int
	for i, x := range q {
		if x != 0 {
			if 2*(len(out)+1) >= len(q) {
				return nil
			}
			out = append(out, i)
		}
	}
	return out
}

// cosineOf is the cosine of q and v, of lengths qn > 0 and vn (VecNorm);
// false when v is empty, of another dimension or zero. With nz, q's
// non-zero entries (nonzero), the products are taken there only; each
// partial sum adds the same non-zero products in the same order, so the
// result is the same to the bit.
func cosineOf(q []float32, qn float64, v []float32, vn float64, nz []int) (float64, bool) {
	if len(v) != len(q) || vn == 0 {
		return 0, false
	}
	v = v[:len(q)]
	if nz != nil {
		var d0, d1 float32
		for _, i := range nz {
			if i&1 == 0 {
				d0 += q[i] * v[i]
			} else {
				d1 += q[i] * v[i]
			}
		}
		return float64(d0+d1) / (qn * vn), true
	}
	return float64(dot(q, v)) / (qn * vn), true
}

// normalize divides xs by their maximum (when positive).
func normalize(xs []float64) {
	m := 0.0
	for _, x := range xs {
		m = math.Max(m, x)
	}
	if m <= 0 {
		return
	}
	for i := range xs {
		xs[i] /= m
	}
}

// prefixSums sets prefix[i+1] to the sum of xs[:i+1]; prefix holds
// len(xs)+1 entries, its first 0.
func prefixSums(prefix, xs []float64) {
	for i, x := range xs {
		prefix[i+1] = prefix[i] + x
	}
}

// windowMean is the mean of a series over [i-w, i+w], clipped to it,
// written into out (resized), from the series' prefixSums.
func windowMean(out, prefix []float64, w int) []float64 {
	n := len(prefix) - 1
	out = zeroed(out, n)
	for i := range n {
		lo, hi := max(i-w, 0), min(i+w, n-1)
		out[i] = (prefix[hi+1] - prefix[lo]) / float64(hi-lo+1)
	}
	return out
}

// turnPrior gives each turn its topic's score over the best score, in
// out, zeroed and of the turns' length.
func turnPrior(out []float64, turns []Turn, topics []Topic, scores []float64) []float64 {
	best := 0.0
	for j := range topics {
		if j < len(scores) {
			best = math.Max(best, scores[j])
		}
	}
	if best <= 0 {
		return out
	}
	for i, t := range turns {
		for j, tp := range topics {
			if j < len(scores) && tp.StartSeq <= t.Seq && t.Seq <= tp.EndSeq {
				out[i] = math.Max(out[i], scores[j]/best)
			}
		}
	}
	return out
}

func topicOf(topics []Topic, seq int) string {
	for _, t := range topics {
		if t.StartSeq <= seq && seq <= t.EndSeq {
			return t.ID
		}
	}
	return ""
}

// EmbedTurns embeds turn texts with the engine's embedder, within the
// global bound. A text the embedder refuses (for example one without any
// word) gets nil; without an embedder every vector is nil.
func (m *Manager) EmbedTurns(ctx context.Context, turns []Turn) ([][]float32, error) {
	out := make([][]float32, len(turns))
	if m.eng == nil || m.eng.deps.Embedder == nil || len(turns) == 0 {
		return out, nil
	}
	texts := make([]string, len(turns))
	for i, t := range turns {
		texts[i] = t.Text
	}
	err := m.eng.callFrom(ctx, func(cctx context.Context) error {
		vs, err := m.eng.deps.Embedder.Embed(cctx, texts)
		if err == nil && len(vs) == len(texts) {
			copy(out, vs)
			return nil
		}
		// One refused text fails the batch: embed one at a time.
		for i, t := range texts {
			if err := cctx.Err(); err != nil {
				return err
			}
			if v, err := m.eng.deps.Embedder.Embed(cctx, []string{t}); err == nil && len(v) == 1 {
				out[i] = v[0]
			}
		}
		return nil
	})
	return out, err
}

// SearchTurns ranks turns (the meeting's, in seq order, with their
// embeddings in vecs) for a query with w: BM25 and embedding similarity
// per turn, with the score of the turn's topic in topic search as a
// prior. k <= 0 returns every hit.
func (m *Manager) SearchTurns(ctx context.Context, query string, turns []Turn, vecs [][]float32, w TurnWeights, k int) []TurnHit {
	return RankTurns(m.TurnQuery(ctx, query, turns, vecs), w, k)
}

// TurnQuery assembles the turn search of query over turns: the query's
// embedding and the topic prior (each topic's fused score in topic
// search, see Search).
func (m *Manager) TurnQuery(ctx context.Context, query string, turns []Turn, vecs [][]float32) TurnQuery {
	// A failed query embedding degrades to lexical search.
	qvec, _ := m.eng.EmbedQuery(ctx, query)
	q := indexTerms(textutil.Terms(nil, query), false)
	m.mu.Lock()
	topics := copyTopics(m.topics)
	lex := bm25(m.lex, q)
	m.mu.Unlock()
	hits := fuse(topics, qvec, lex, m.cfg.SearchThreshold, len(topics))
	scores := make([]float64, len(topics))
	byID := make(map[string]int, len(topics))
	for i, t := range topics {
		byID[t.ID] = i
	}
	for _, h := range hits {
		if i, ok := byID[h.ID]; ok {
			scores[i] = h.Score
		}
	}
	for i := range topics {
		topics[i].Embedding = nil
	}
	return TurnQuery{Query: query, QueryVec: qvec, Turns: turns, Vecs: vecs, Topics: topics, TopicScores: scores, MinCosine: m.cfg.SearchThreshold}
}
