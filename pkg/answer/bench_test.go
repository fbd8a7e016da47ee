package answer_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/askmode"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/tokens"
)

// BenchmarkBuild packs an answer context for an 8K window from three
// searched topics of 400 turns, 25 recent and 25 pending turns, with the
// turns' token counts stored at ingest and line-prefix counts kept across
// builds, as the ask service builds it.
func BenchmarkBuild(b *testing.B) {
	c, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	turns := randomTurns(rng, c, 1250)
	in := answer.Input{
		Mode: askmode.Answer, Question: "What did we decide about the battery budget?",
		Recent: turns[1200:1225], Pending: turns[1225:], Counter: c, Budget: tokens.NewBudget(8192, 1024).Available(),
		StoredTokens: true, Prefixes: answer.NewPrefixCounts(),
	}
	for i := range 3 {
		in.Searched = append(in.Searched, answer.SearchedTopic{Turns: turns[i*400 : (i+1)*400]})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := answer.Build(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScore ranks 1,200 QMSum turns against one of its queries.
func BenchmarkScore(b *testing.B) {
	dir := qmsumtest.Dir(b)
	m, err := qmsum.Load(filepath.Join(dir, "val", "Bed002.json"))
	if err != nil {
		b.Skip(err)
	}
	var turns []meetingctx.Turn
	for len(turns) < 1200 {
		for _, u := range qmsum.Utterances(m, "") {
			turns = append(turns, meetingctx.Turn{Seq: len(turns), Text: u.Text})
		}
	}
	turns = turns[:1200]
	b.ReportAllocs()
	for b.Loop() {
		answer.Score(turns, m.SpecificQueries[0].Query)
	}
}

// BenchmarkExtractive answers one QMSum query extractively from the
// context an ask builds at the end of the meeting: the 40 best turns of
// turn search and the 25 latest turns. "cold" cleans every candidate turn
// (a context without indexed turns); "cached" is the ask path, whose
// indexed turns keep their cleaned sentences between asks.
func BenchmarkExtractive(b *testing.B) {
	dir, err := qmsum.DataDir()
	if err != nil {
		b.Skip(err)
	}
	m, err := qmsum.Load(filepath.Join(dir, "val", "Bed002.json"))
	if err != nil {
		b.Skip(err)
	}
	var turns []meetingctx.Turn
	for i, u := range qmsum.Utterances(m, "") {
		turns = append(turns, meetingctx.Turn{Seq: i, SpeakerName: u.SpeakerName, Text: u.Text, StartMS: u.StartMS, Confidence: 1})
	}
	q := m.SpecificQueries[0].Query
	hits := meetingctx.RankTurns(meetingctx.TurnQuery{Query: q, Turns: turns}, meetingctx.DefaultTurnWeights, 40)
	rank := map[int]int{}
	st := answer.SearchedTopic{Index: answer.NewTurnIndex(turns[:len(turns)-25])}
	for i, h := range hits {
		rank[h.Seq] = i + 1
		if h.Seq < len(turns)-25 {
			st.Order, st.Ranks = append(st.Order, h.Seq), append(st.Ranks, i+1)
		}
	}
	var ps []*meetingctx.Turn
	var ranks []int
	for i := range turns {
		if r, ok := rank[i]; ok || i >= len(turns)-25 {
			ps, ranks = append(ps, &turns[i]), append(ranks, r)
		}
	}
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		b.Fatal(err)
	}
	cached, err := answer.Build(answer.Input{Mode: askmode.Answer, Question: q, Searched: []answer.SearchedTopic{st},
		Recent: turns[len(turns)-25:], Counter: counter, Budget: 100_000, TurnsOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ctx  answer.Context
	}{{"cold", answer.NewContext(ps, ranks)}, {"cached", cached}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (answer.Extractive{}).Answer(context.Background(), c.ctx, askmode.Answer, q, func(string) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTurnSearch ranks 500 indexed QMSum turns (a bench-ask meeting)
// for each of Bed002's specific queries with the shipped weights: "terms"
// over the indexed turns as a list, without embeddings; "topics" with the
// turns held as the ask path holds them, in topic indexes of 50 turns
// each; "embedded" also with the local embedder's vectors, packed as the
// ask topic cache keeps them.
func BenchmarkTurnSearch(b *testing.B) {
	m, turns := bed002Turns(b, 500)
	idx := answer.Index(turns)
	docs := make(answer.Terms, len(idx))
	for i := range idx {
		docs[i] = &idx[i]
	}
	var set answer.TurnSet
	for from := 0; from < len(turns); from += 50 {
		set.AddIndex(answer.NewTurnIndex(turns[from:min(from+50, len(turns))]))
	}
	emb := segment.NewEmbedder(0)
	vecs, err := emb.Embed(b.Context(), texts(turns))
	if err != nil {
		b.Fatal(err)
	}
	// In runs of 50 turns, as the topic cache keeps them.
	var packed []meetingctx.PackedRun
	for from := 0; from < len(vecs); from += 50 {
		packed = append(packed, meetingctx.PackedRun{At: from, Vecs: meetingctx.PackVecs(vecs[from:min(from+50, len(vecs))])})
	}
	qvecs := make([][]float32, len(m.SpecificQueries))
	for i, q := range m.SpecificQueries {
		v, err := emb.Embed(b.Context(), []string{q.Query})
		if err != nil {
			b.Fatal(err)
		}
		qvecs[i] = v[0]
	}
	for _, c := range []struct {
		name  string
		terms meetingctx.TurnTerms
		embed bool
	}{{"terms", docs, false}, {"topics", &set, false}, {"embedded", &set, true}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				k := i % len(m.SpecificQueries)
				q := meetingctx.TurnQuery{Query: m.SpecificQueries[k].Query, Turns: turns, Indexed: c.terms}
				if c.embed {
					q.QueryVec, q.Packed = qvecs[k], packed
				}
				meetingctx.RankTurns(q, meetingctx.DefaultTurnWeights, 40)
			}
		})
	}
}

func texts(turns []meetingctx.Turn) []string {
	out := make([]string, len(turns))
	for i, t := range turns {
		out[i] = t.Text
	}
	return out
}

// BenchmarkIndex indexes 500 QMSum turns, as the ask topic cache does
// when it first reads a meeting's topics.
func BenchmarkIndex(b *testing.B) {
	_, turns := bed002Turns(b, 500)
	b.ReportAllocs()
	for b.Loop() {
		answer.Index(turns)
	}
}

// bed002Turns returns QMSum's Bed002 and its first n turns as the replay
// sends them.
func bed002Turns(b *testing.B, n int) (*qmsum.Meeting, []meetingctx.Turn) {
	dir := qmsumtest.Dir(b)
	m, err := qmsum.Load(filepath.Join(dir, "val", "Bed002.json"))
	if err != nil {
		b.Skip(err)
	}
	var turns []meetingctx.Turn
	for _, u := range qmsum.Utterances(m, "") {
		turns = append(turns, meetingctx.Turn{Seq: len(turns), SpeakerName: u.SpeakerName, Text: u.Text})
	}
	return m, turns[:min(n, len(turns))]
}
