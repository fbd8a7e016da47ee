package meetingctx

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/mithub/mithub/pkg/textutil"
)

// fusionFixture is a meeting where the answer (seq 20) is only moderately
// good on each leg: three lexical decoys repeat the query term (higher
// BM25, embeddings orthogonal to the query) and three semantic decoys
// point the query's way (higher cosine, no query term). Every turn has
// the same number of words, and decoys are more than a window apart, so
// only the combination of both legs puts the answer first.
func fusionFixture() TurnQuery {
	var q TurnQuery
	q.Query = "budget"
	q.QueryVec = []float32{1, 0, 0}
	add := func(text string, vec []float32) {
		q.Turns = append(q.Turns, Turn{Seq: len(q.Turns), SpeakerName: "A", Text: text})
		q.Vecs = append(q.Vecs, vec)
	}
	for i := 0; i < 48; i++ {
		switch i {
		case 0, 8, 36:
			add("budget budget budget hall", []float32{0, 1, 0})
		case 4, 28, 44:
			add("money spend costs plan", []float32{1, 0, 0})
		case 20:
			add("budget for new hall", []float32{0.7, 0.7, 0})
		default:
			add("okay yes right sure", []float32{0, 0, 1})
		}
	}
	return q
}

func recallAt(hits []TurnHit, seq, k int) bool {
	for i, h := range hits {
		if i < k && h.Seq == seq {
			return true
		}
	}
	return false
}

func TestTurnFusionNeedsBothLegs(t *testing.T) {
	q := fusionFixture()
	both := TurnWeights{BM25: 1, Embed: 1}
	lexOnly := TurnWeights{BM25: 1}
	embOnly := TurnWeights{Embed: 1}
	if hits := RankTurns(q, both, 3); !recallAt(hits, 20, 1) {
		t.Fatalf("fused: answer not first: %v", seqs(hits))
	}
	if hits := RankTurns(q, lexOnly, 3); recallAt(hits, 20, 3) {
		t.Errorf("BM25 alone finds the answer in the top 3 (%v): the fixture does not test fusion", seqs(hits))
	}
	if hits := RankTurns(q, embOnly, 3); recallAt(hits, 20, 3) {
		t.Errorf("embedding alone finds the answer in the top 3 (%v): the fixture does not test fusion", seqs(hits))
	}
	// The same with context features: each leg's window mean joins it.
	ctx := TurnWeights{BM25: 1, BM25Ctx: 1, Embed: 1, EmbedCtx: 1, Window: 2}
	if hits := RankTurns(q, ctx, 3); !recallAt(hits, 20, 1) {
		t.Errorf("fused with context: answer not first: %v", seqs(hits))
	}
	noEmb := ctx
	noEmb.Embed, noEmb.EmbedCtx = 0, 0
	noLex := ctx
	noLex.BM25, noLex.BM25Ctx = 0, 0
	for name, w := range map[string]TurnWeights{"without embedding": noEmb, "without BM25": noLex} {
		if hits := RankTurns(q, w, 3); recallAt(hits, 20, 3) {
			t.Errorf("%s the answer is still in the top 3: %v", name, seqs(hits))
		}
	}
}

// The shipped weights must use both legs, or the fusion above is moot.
func TestDefaultTurnWeightsUseBothLegs(t *testing.T) {
	w := DefaultTurnWeights
	if w.BM25+w.BM25Ctx <= 0 || w.Embed+w.EmbedCtx <= 0 {
		t.Fatalf("shipped weights drop a leg: %+v", w)
	}
	if got, err := ParseTurnWeights(turnWeightsJSON); err != nil || !reflect.DeepEqual(got, w) {
		t.Fatalf("ParseTurnWeights = %+v, %v", got, err)
	}
	if _, err := ParseTurnWeights([]byte(`{"window": -1}`)); err == nil {
		t.Error("negative window accepted")
	}
	if _, err := ParseTurnWeights([]byte(`{"bm25": "x"}`)); err == nil {
		t.Error("malformed weights accepted")
	}
}

func seqs(hits []TurnHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = fmt.Sprintf("%d:%.2f", h.Seq, h.Score)
	}
	return out
}

func TestRankTurnsKoreanAndEnglish(t *testing.T) {
	q := TurnQuery{Turns: []Turn{
		{Seq: 0, Text: "오늘 회의 안건은 예산입니다"},
		{Seq: 1, Text: "the launch date moved to May"},
		{Seq: 2, Text: "디자인 검토는 다음 주에 합니다"},
	}}
	for _, c := range []struct {
		query string
		want  int
	}{{"예산", 0}, {"launch date", 1}, {"디자인 검토", 2}} {
		q.Query = c.query
		hits := RankTurns(q, DefaultTurnWeights, 3)
		if len(hits) == 0 || hits[0].Seq != c.want {
			t.Errorf("%q: hits %v, want seq %d first", c.query, seqs(hits), c.want)
		}
	}
}

// A question in one language finds a turn in the other through the
// Hangul spellings of English words ("대시보드" is "dashboard").
func TestRankTurnsAcrossLanguages(t *testing.T) {
	q := TurnQuery{Turns: []Turn{
		{Seq: 0, Text: "오늘 회의 안건은 예산입니다"},
		{Seq: 1, Text: "I'll build one launch dashboard with crash-free rates by platform."},
		{Seq: 2, Text: "the launch date moved to May"},
		{Seq: 3, Text: "스크린샷은 다음 주 월요일에 다시 찍을게요"},
	}}
	for _, c := range []struct {
		query string
		want  int
	}{{"대시보드는 누가 만들어요?", 1}, {"Who takes the screenshots again?", 3}} {
		q.Query = c.query
		hits := RankTurns(q, DefaultTurnWeights, 4)
		if len(hits) == 0 || hits[0].Seq != c.want {
			t.Errorf("%q: hits %v, want seq %d first", c.query, seqs(hits), c.want)
		}
	}
}

func TestRankTurnsNoMatchAndPrior(t *testing.T) {
	q := TurnQuery{Query: "budget", Turns: []Turn{
		{Seq: 0, Text: "we talk about the budget"},
		{Seq: 1, Text: "nothing here"},
		{Seq: 2, Text: "we talk about the budget"},
	}, Topics: []Topic{{ID: "t1", StartSeq: 0, EndSeq: 1}, {ID: "t2", StartSeq: 2, EndSeq: 2}}}
	w := TurnWeights{BM25: 1, Prior: 1}
	// Equal BM25: the prior decides, then the earlier turn.
	q.TopicScores = []float64{0.01, 0.02}
	hits := RankTurns(q, w, 10)
	if len(hits) != 2 || hits[0].Seq != 2 || hits[0].TopicID != "t2" || hits[1].Seq != 0 || hits[1].TopicID != "t1" {
		t.Fatalf("with prior: %v", seqs(hits))
	}
	q.TopicScores = nil
	if hits := RankTurns(q, w, 10); len(hits) != 2 || hits[0].Seq != 0 {
		t.Fatalf("tie: %v", seqs(hits))
	}
	q.Query = "unrelated words"
	if hits := RankTurns(q, w, 10); len(hits) != 0 {
		t.Fatalf("no match gave hits %v", seqs(hits))
	}
	q.Query = ""
	if hits := RankTurns(q, w, 10); len(hits) != 0 {
		t.Fatalf("empty query gave hits %v", seqs(hits))
	}
}

// Query stopwords leave BM25 to the words of what is asked about, unless
// the question has no other words.
func TestRankTurnsQueryStopwords(t *testing.T) {
	q := TurnQuery{Query: "what did the group discuss about the budget", Turns: []Turn{
		{Seq: 0, Text: "let us discuss it as a group, the group should discuss"},
		{Seq: 1, Text: "the budget is fine"},
	}}
	w := TurnWeights{BM25: 1, QueryStop: []string{"discuss", "group"}}
	if hits := RankTurns(q, w, 2); len(hits) != 1 || hits[0].Seq != 1 {
		t.Fatalf("with stopwords: %v", seqs(hits))
	}
	if hits := RankTurns(q, TurnWeights{BM25: 1}, 2); len(hits) != 2 || hits[0].Seq != 0 {
		t.Fatalf("without stopwords: %v", seqs(hits))
	}
	q.Query = "discuss group"
	if hits := RankTurns(q, w, 2); len(hits) != 1 || hits[0].Seq != 0 {
		t.Fatalf("only stopwords: %v", seqs(hits))
	}
}

// The query's words find their other forms ("buttons" the turn about a
// button, "discussed" a discussion).
func TestRankTurnsStemmed(t *testing.T) {
	q := TurnQuery{Turns: []Turn{
		{Seq: 0, Text: "the red button was too small"},
		{Seq: 1, Text: "our discussion of the budget"},
		{Seq: 2, Text: "nothing to see here"},
	}}
	for _, c := range []struct {
		query string
		want  int
	}{{"Which buttons were too small?", 0}, {"What was discussed?", 1}} {
		q.Query = c.query
		if hits := RankTurns(q, TurnWeights{BM25: 1}, 3); len(hits) != 1 || hits[0].Seq != c.want {
			t.Errorf("%q: hits %v, want only seq %d", c.query, seqs(hits), c.want)
		}
	}
}

// A question that names a speaker puts that speaker's turns first among
// turns that match it equally; names are whole words, and a one-letter
// name names no one.
func TestRankTurnsSpeakerNamed(t *testing.T) {
	speakers := []string{"Project Manager", "Marketing", "Industrial Designer", "김민수", "A"}
	var turns []Turn
	for i, s := range speakers {
		turns = append(turns, Turn{Seq: i, SpeakerName: s, Text: "the budget 예산 is tight"})
	}
	w := TurnWeights{BM25: 1, Speaker: 1}
	for _, c := range []struct {
		query string
		want  int // -1: nobody named, the earliest turn first
	}{
		{"What did Marketing think about the budget?", 1},
		{"What did the project manager say about the budget?", 0},
		{"김민수님은 예산에 대해 뭐라고 했어?", 3},
		{"민수 씨가 예산 얘기 뭐라고 했지?", 3},
		{"What did the manager say about the budget?", -1},
		{"What did A say about a budget?", -1},
		{"marketingplan budget", -1},
	} {
		q := TurnQuery{Query: c.query, Turns: turns}
		hits := RankTurns(q, w, 0)
		if len(hits) != len(turns) {
			t.Fatalf("%q: hits %v", c.query, seqs(hits))
		}
		named := 0
		for _, h := range hits {
			if h.Score > hits[len(hits)-1].Score {
				named++
			}
		}
		switch {
		case c.want >= 0 && (hits[0].Seq != c.want || named != 1):
			t.Errorf("%q: hits %v, want seq %d alone first", c.query, seqs(hits), c.want)
		case c.want < 0 && named != 0:
			t.Errorf("%q: hits %v, want no speaker named", c.query, seqs(hits))
		}
	}
	// Without a speaker weight the name changes nothing.
	if hits := RankTurns(TurnQuery{Query: "What did Marketing think about the budget?", Turns: turns}, TurnWeights{BM25: 1}, 0); hits[0].Seq != 0 {
		t.Errorf("unweighted: %v", seqs(hits))
	}
}

// testTerms is a TurnTerms over per-turn sorted terms and counts.
type testTerms []struct {
	terms []string
	freqs []int32
}

func (x testTerms) Terms(i int) int {
	n := 0
	for _, f := range x[i].freqs {
		n += int(f)
	}
	return n
}

func (x testTerms) Count(qterms []string, add func(i, j, n int)) {
	for i := range x {
		for j, q := range qterms {
			if k, ok := slices.BinarySearch(x[i].terms, q); ok {
				add(i, j, int(x[i].freqs[k]))
			}
		}
	}
}

// Turns indexed once (Indexed) rank exactly as turns tokenised per query.
func TestRankTurnsIndexedMatchesTokenising(t *testing.T) {
	q := fusionFixture()
	q.Turns[5].Text = "예산 budgets 예산을 줄입시다, the budget"
	q.Query = "budget 예산"
	ix := make(testTerms, len(q.Turns))
	for i, tu := range q.Turns {
		counts := map[string]int32{}
		for _, w := range textutil.Stemmed(nil, tu.Text) {
			counts[w]++
		}
		for w := range counts {
			ix[i].terms = append(ix[i].terms, w)
		}
		slices.Sort(ix[i].terms)
		for _, w := range ix[i].terms {
			ix[i].freqs = append(ix[i].freqs, counts[w])
		}
	}
	w := TurnWeights{BM25: 1, BM25Ctx: 0.5, Embed: 1, Length: 0.3, BM25Wide: 1, Window: 2}
	want := RankTurns(q, w, 0)
	q.Indexed = ix
	got := RankTurns(q, w, 0)
	if !reflect.DeepEqual(seqs(got), seqs(want)) || len(want) == 0 {
		t.Fatalf("indexed %v, tokenised %v", seqs(got), seqs(want))
	}
}

// cosineOf, with both lengths computed once, is cosine.
func TestCosineOfIsCosine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dim := range []int{1, 2, 7, 256} {
		for range 50 {
			a, b := make([]float32, dim), make([]float32, dim)
			for i := range a {
				a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			}
			want, _ := cosine(a, b)
			got, ok := cosineOf(a, norm(a), b, VecNorm(b), nil)
			if !ok || math.Abs(got-want) > 1e-5 {
				t.Fatalf("dim %d: cosineOf %v (%v), cosine %v", dim, got, ok, want)
			}
		}
	}
	if _, ok := cosineOf([]float32{1, 2}, norm([]float32{1, 2}), []float32{0, 0}, 0, nil); ok {
		t.Fatal("a zero vector has no cosine")
	}
	if _, ok := cosineOf([]float32{1, 2}, norm([]float32{1, 2}), []float32{1, 2, 3}, VecNorm([]float32{1, 2, 3}), nil); ok {
		t.Fatal("vectors of other dimensions have no cosine")
	}
}

// bestTurns is a stable sort by score, best first, cut to k: checked on
// random scores with many ties, for every k.
func TestBestTurnsIsStableSortCut(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 3, 10, 57} {
		cands := make([]rankedTurn, n)
		for i := range cands {
			cands[i] = rankedTurn{i: i * 2, score: float64(r.IntN(5))}
		}
		want := slices.Clone(cands)
		slices.SortStableFunc(want, func(a, b rankedTurn) int { return cmp.Compare(b.score, a.score) })
		for k := -1; k <= n+1; k++ {
			got := bestTurns(slices.Clone(cands), k)
			w := want
			if k > 0 && k < n {
				w = want[:k]
			}
			if !slices.Equal(got, w) {
				t.Fatalf("n %d k %d: %v, want %v", n, k, got, w)
			}
		}
	}
}

// Embeddings packed once where they are kept rank exactly as the
// vectors themselves; a packed vector that is not the turn's would change
// the embedding leg.
func TestRankTurnsPacked(t *testing.T) {
	q := fusionFixture()
	// Lengths other than 1, so a wrong norm shows.
	for i, v := range q.Vecs {
		q.Vecs[i] = []float32{v[0] * float32(i+1), v[1] * 3, v[2] * 0.5}
	}
	w := TurnWeights{BM25: 0.2, Embed: 1, Window: 2}
	want := RankTurns(q, w, 10)
	// In two runs, as a search over two topics has them.
	half := len(q.Vecs) / 2
	q.Packed = []PackedRun{{0, PackVecs(q.Vecs[:half])}, {half, PackVecs(q.Vecs[half:])}}
	got := RankTurns(q, w, 10)
	if !reflect.DeepEqual(got, want) || len(want) == 0 {
		t.Fatalf("packed %v, vectors %v", seqs(got), seqs(want))
	}
	reversed := slices.Clone(q.Vecs)
	slices.Reverse(reversed)
	q.Packed = []PackedRun{{0, PackVecs(reversed)}}
	if reflect.DeepEqual(RankTurns(q, w, 10), want) {
		t.Fatal("the packed vectors are not read")
	}
	// A run placed one turn off gives other turns' vectors.
	q.Packed = []PackedRun{{0, PackVecs(q.Vecs[:half])}, {half - 1, PackVecs(q.Vecs[half : len(q.Vecs)-1])}}
	if reflect.DeepEqual(RankTurns(q, w, 10), want) {
		t.Fatal("a run's place is not read")
	}
	// A run outside the turns, or without embeddings, is no run.
	q.Packed = []PackedRun{{0, nil}, {-1, PackVecs(q.Vecs)}, {1, PackVecs(q.Vecs)}}
	if got := RankTurns(q, w, 10); !reflect.DeepEqual(got, RankTurns(q, TurnWeights{BM25: 0.2, Window: 2}, 10)) {
		t.Fatalf("with runs out of place %v", seqs(got))
	}
	// Turns in no run have no embedding leg.
	q.Packed = []PackedRun{}
	q.Vecs = nil
	if got := RankTurns(q, w, 10); !reflect.DeepEqual(got, RankTurns(q, TurnWeights{BM25: 0.2, Window: 2}, 10)) {
		t.Fatalf("without embeddings %v", seqs(got))
	}
}

// Packed embeddings give each turn the cosine of its vector to the bit,
// whether they are kept by entries (sparse) or whole (dense), with a
// sparse or dense query; only positive cosines are written.
func TestPackedVecsCosines(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	vec := func(dim int, zeros float64) []float32 {
		v := make([]float32, dim)
		for i := range v {
			if r.Float64() >= zeros {
				v[i] = float32(r.NormFloat64())
			}
		}
		return v
	}
	sparse := 0
	for _, dim := range []int{1, 3, 8, 255, 256} {
		for range 10 {
			vecs := make([][]float32, 10)
			for i := range vecs {
				vecs[i] = vec(dim, r.Float64())
				if nonzero(vecs[i]) != nil {
					sparse++
				}
			}
			vecs[3] = nil // a turn without an embedding
			p := PackVecs(vecs)
			q := vec(dim, 0.9)
			q[0] = 1
			qn := norm(q)
			for _, nz := range [][]int{nil, nonzero(q)} {
				got := make([]float64, len(vecs))
				p.cosines(q, qn, nz, got, make([]float32, 2*p.Len()))
				for i, v := range vecs {
					want, ok := cosineOf(q, qn, v, VecNorm(v), nil)
					if !ok || want < 0 {
						want = 0
					}
					if got[i] != want {
						t.Fatalf("dim %d turn %d: packed %v, vector %v", dim, i, got[i], want)
					}
				}
			}
		}
	}
	if sparse < 100 {
		t.Fatalf("only %d vectors were packed by entries: the sparse form is barely tested", sparse)
	}
	cosines := func(vecs [][]float32, q []float32) []float64 {
		out := make([]float64, len(vecs))
		p := PackVecs(vecs)
		p.cosines(q, norm(q), nonzero(q), out, make([]float32, 2*p.Len()))
		return out
	}
	if got := cosines([][]float32{nil, {0, 0, 0}, {1, 0, 0}}, []float32{1, 0, 0}); !slices.Equal(got, []float64{0, 0, 1}) {
		t.Fatalf("empty and zero vectors: %v", got)
	}
	// The run's dimension is its first vector's: another counts as none.
	if got := cosines([][]float32{{1, 0, 0}, {1, 0, 0, 0}}, []float32{1, 0, 0}); !slices.Equal(got, []float64{1, 0}) {
		t.Fatalf("a vector of another dimension: %v", got)
	}
	if got := cosines([][]float32{{1, 0, 0}}, []float32{1, 0, 0, 0}); !slices.Equal(got, []float64{0}) {
		t.Fatalf("a query of another dimension: %v", got)
	}
}

// Over a sparse query's non-zero entries the cosine is the dense one to
// the bit, for odd and even dimensions and dense turn vectors.
func TestCosineOfSparseQuery(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dim := range []int{3, 8, 255, 256} {
		for range 200 {
			q, v := make([]float32, dim), make([]float32, dim)
			for i := range v {
				v[i] = float32(r.NormFloat64())
				if r.IntN(4) == 0 {
					v[i] = 0
				}
			}
			for range 1 + r.IntN(max(1, dim/3)) {
				q[r.IntN(dim)] = float32(r.NormFloat64())
			}
			q[dim-1] = 1 // the odd tail of an odd dimension
			nz := nonzero(q)
			if nz == nil {
				continue
			}
			want, wok := cosineOf(q, norm(q), v, VecNorm(v), nil)
			got, ok := cosineOf(q, norm(q), v, VecNorm(v), nz)
			if got != want || ok != wok {
				t.Fatalf("dim %d: sparse %v (%v), dense %v (%v)", dim, got, ok, want, wok)
			}
		}
	}
	if nonzero([]float32{1, 0, 2, 0}) != nil || len(nonzero([]float32{0, 0, 2, 0, 0})) != 1 {
		t.Fatal("nonzero: a vector half non-zero is dense, and one entry of five is sparse")
	}
}
