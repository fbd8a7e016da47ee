package answer_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/tokens"
)

// Turn search over indexed turns (answer.Terms) ranks exactly as over turns
// tokenised per query, in English and Korean.
func TestTermsRankAsTokenising(t *testing.T) {
	c, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	turns := randomTurns(rand.New(rand.NewPCG(5, 6)), c, 400)
	turns[17].Text = "예산 budget 예산을 줄입시다, the budget review"
	turns[230].Text = "출시 일정과 예산은 다음 주에 확정합니다, launch date"
	turns[301].Text = "the budgets were reviewed, launching later"
	idx := answer.Index(turns)
	docs := make(answer.Terms, len(idx))
	for i := range idx {
		docs[i] = &idx[i]
	}
	// The same turns as the ask path holds them: topics' indexes, each
	// with its inverted index of stems (one of them of turns that no
	// stemming changes), then loose indexed turns.
	var set answer.TurnSet
	set.AddIndex(answer.NewTurnIndex(turns[:150]))
	set.AddIndex(answer.NewTurnIndex(nil))
	set.AddIndex(answer.NewTurnIndex([]meetingctx.Turn{{Seq: turns[150].Seq, Text: "예산 검토"}}))
	set.AddIndex(answer.NewTurnIndex(turns[151:380]))
	set.AddTurns(docs[380:])
	setTurns := slices.Clone(turns)
	setTurns[150].Text = "예산 검토"
	if set.Len() != len(turns) {
		t.Fatalf("the set holds %d turns, want %d", set.Len(), len(turns))
	}
	w := meetingctx.TurnWeights{BM25: 1, BM25Ctx: 0.5, Length: 0.3, BM25Wide: 1, Window: 2}
	for _, query := range []string{"budget review", "예산 출시", "launch date", "budgets reviewed", "zzz"} {
		q := meetingctx.TurnQuery{Query: query, Turns: turns}
		want := meetingctx.RankTurns(q, w, 0)
		q.Indexed = docs
		got := meetingctx.RankTurns(q, w, 0)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: indexed %d hits, tokenised %d, or a different order", query, len(got), len(want))
		}
		q = meetingctx.TurnQuery{Query: query, Turns: setTurns}
		want = meetingctx.RankTurns(q, w, 0)
		q.Indexed = &set
		if got := meetingctx.RankTurns(q, w, 0); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: a turn set gives %d hits, tokenised %d, or a different order", query, len(got), len(want))
		}
		if query != "zzz" && len(want) == 0 {
			t.Fatalf("%q matched nothing: the test proves nothing", query)
		}
		// Stemmed terms: each form of the words finds turn 301.
		if query == "budget review" || query == "budgets reviewed" {
			if !slices.ContainsFunc(got, func(h meetingctx.TurnHit) bool { return h.Seq == turns[301].Seq }) {
				t.Errorf("%q missed %q", query, turns[301].Text)
			}
		}
	}
}
