package ask_test

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/mithub/mithub/pkg/ask"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
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
	in := ask.Input{
		Call: ask.CallAnswer, Question: "What did we decide about the battery budget?",
		Recent: turns[1200:1225], Pending: turns[1225:], Counter: c, Budget: tokens.NewBudget(8192, 1024).Available(),
		StoredTokens: true, Prefixes: ask.NewPrefixCounts(),
	}
	for i := range 3 {
		in.Searched = append(in.Searched, ask.SearchedTopic{Turns: turns[i*400 : (i+1)*400]})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ask.Build(in); err != nil {
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
		ask.Score(turns, m.SpecificQueries[0].Query)
	}
}
