package answertrain

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/askmode"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/services/mithubctl/internal/eval"
	"github.com/mithub/mithub/services/mithubctl/internal/modelfile"
)

// Fit learns a positive weight for the feature that predicts the label
// and a negative one for the feature that predicts its absence.
func TestFitLearnsDirection(t *testing.T) {
	var q Query
	for i := range 40 {
		var s answer.Sentence
		y := float64(i % 2)
		s.F[answer.FCover] = y
		s.F[answer.FShort] = 1 - y
		q.Cands = append(q.Cands, s)
		q.Labels = append(q.Labels, y)
	}
	w, _ := Fit([]Query{q}, 500)
	if w[answer.FCover] <= 0 || w[answer.FShort] >= 0 {
		t.Fatalf("weights %v: cover should be positive, short negative", w)
	}
}

// Training twice on the same meetings writes the same bytes; the model
// parses as the answerer reads it, and its answers beat ranking the
// sentences by nothing (all scores equal).
func TestTrainDeterministic(t *testing.T) {
	dir, err := qmsum.DataDir()
	if err != nil {
		t.Fatal(err)
	}
	var outs [2][]byte
	var qs []Query
	var m answer.AnswerModel
	for i := range outs {
		qs, err = Load(filepath.Join(dir, "train"), Options{Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(qs) == 0 {
			t.Fatal("no queries")
		}
		m = Train(qs, Options{Steps: 200})
		if outs[i], err = modelfile.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatalf("two runs differ:\n%s\n%s", outs[0], outs[1])
	}
	if _, err := answer.ParseAnswerModel(outs[0]); err != nil {
		t.Fatalf("trained model does not parse: %v", err)
	}
	flat := m
	flat.Weights = make([]float64, answer.NumFeatures)
	if got, base := Evaluate(qs, m, 40, 90), Evaluate(qs, flat, 40, 90); got.R1 <= base.R1 {
		t.Errorf("trained R-1 %.2f not above unranked %.2f", got.R1, base.R1)
	}
}

// q is a query of meeting m (series s) whose candidates are the sentences.
func priorQuery(m, s, ref string, sents ...string) Query {
	q := Query{Meeting: m, Series: s, Reference: ref}
	for _, x := range sents {
		q.Cands = append(q.Cands, answer.Sentence{Text: x})
	}
	return q
}

// LearnPrior: a token the references always have gets more than one they
// never have, both smoothed towards the default (the share over all
// tokens); a token in the candidates of too few meetings is left out.
func TestLearnPrior(t *testing.T) {
	var qs []Query
	for i := range 10 {
		m := fmt.Sprintf("M%d", i)
		qs = append(qs, priorQuery(m, m, "the budget was approved", "the budget yeah", "yeah so"))
	}
	qs = append(qs, priorQuery("M0", "M0", "rare", "zebra"))
	p := LearnPrior(qs)
	// Occurrences: the 10 (all hit), budget 10 (hit), yeah 20 (none), so
	// 10 (none), zebra 1 (none): 20 hits of 51.
	if want := round(20.0 / 51); p.Default != want {
		t.Errorf("default %v, want %v", p.Default, want)
	}
	if want := round((10 + priorSmoothing*20.0/51) / (10 + priorSmoothing)); p.Tokens["budget"] != want {
		t.Errorf("budget %v, want %v", p.Tokens["budget"], want)
	}
	if !(p.Tokens["the"] > p.Default && p.Tokens["yeah"] < p.Default) {
		t.Errorf("the %v, yeah %v, default %v", p.Tokens["the"], p.Tokens["yeah"], p.Default)
	}
	if _, ok := p.Tokens["zebra"]; ok {
		t.Error("a token of one meeting in ten is in the prior")
	}
}

// CrossFitPrior gives each query the prior of the other folds: a token
// that only one series' references have is no better than the default
// for that series' own sentences.
func TestCrossFitPriorLeavesTheFoldOut(t *testing.T) {
	var qs []Query
	for i := range 12 {
		m := fmt.Sprintf("S%02d", i)
		ref := "nothing"
		if i == 0 {
			ref = "rubber"
		}
		qs = append(qs, priorQuery(m, m, ref, "rubber", "other"))
	}
	CrossFitPrior(qs)
	full := LearnPrior(qs)
	if !(full.Tokens["rubber"] > full.Tokens["other"]) {
		t.Fatalf("on all queries rubber %v should beat other %v", full.Tokens["rubber"], full.Tokens["other"])
	}
	if got, other := qs[0].Cands[0].F[answer.FPrior], qs[0].Cands[1].F[answer.FPrior]; got > other {
		t.Errorf("S00's own reference leaked into its prior: rubber %v > other %v", got, other)
	}
}

// Ascend turns a weight that picks the wrong sentence around: each query
// has room for one of two 50-word sentences, the reference is the one
// with the query's terms, and the start model prefers the other.
func TestAscendRaisesWholeAnswerROUGE(t *testing.T) {
	good := strings.Repeat("kinetic battery charges by shaking ", 10)
	bad := strings.Repeat("lunch was nice today thanks ", 10)
	qs, m := twoSentenceQueries(good, bad, good, nil)
	before := Evaluate(qs, m, 40, 90).R1
	got := Ascend(qs, m, 3, nil)
	after := Evaluate(qs, got, 40, 90).R1
	if !(after > before) || after < 99 {
		t.Fatalf("R-1 %.1f -> %.1f, want the good sentence picked (100)", before, after)
	}
	if got.Weights[answer.FCover] <= 0 && got.Weights[answer.FShort] >= 0.3 {
		t.Errorf("weights %v: neither cover rose nor short fell", got.Weights)
	}
}

// A token common in one corpus's meetings but absent from another's is
// left out of the prior: it would carry one corpus's subject, not how
// answers are written.
func TestLearnPriorNeedsEveryCorpus(t *testing.T) {
	var qs []Query
	for i := range 6 {
		ami := fmt.Sprintf("ES20%02da", i)
		qs = append(qs, priorQuery(ami, SeriesOf(ami), "the kinetic battery", "the battery rubber"))
		icsi := fmt.Sprintf("Bmr0%02d", i)
		qs = append(qs, priorQuery(icsi, SeriesOf(icsi), "the recognizer", "the recognizer"))
	}
	p := LearnPrior(qs)
	if _, ok := p.Tokens["the"]; !ok {
		t.Error("the, in both corpora, is not in the prior")
	}
	for _, x := range []string{"batteri", "rubber", "recogn"} {
		if v, ok := p.Tokens[x]; ok {
			t.Errorf("%s (one corpus) is in the prior at %v", x, v)
		}
	}
}

// Training scores what the eval scores: AnswerText of the extracted
// points is eval.ScoredText of the answer the local answerer writes from
// them, runs of one speaker's points included.
func TestAnswerTextIsTheScoredAnswer(t *testing.T) {
	var turns []meetingctx.Turn
	for i, r := range [][2]string{
		{"Ann", "Um, the rubber case costs four euros per unit."},
		{"Ann", "The rubber case feels soft in the hand."},
		{"Bob", "Uh the rubber case needs a second supplier, I mean."},
		{"Ann", "The rubber case ships in March."},
	} {
		turns = append(turns, meetingctx.Turn{Seq: i, SpeakerName: r[0], SpeakerID: r[0], Text: r[1], Confidence: 0.9})
	}
	ptrs := make([]*meetingctx.Turn, len(turns))
	for i := range turns {
		ptrs[i] = &turns[i]
	}
	c := answer.NewContext(ptrs, []int{1, 2, 3, 4})
	m := answer.DefaultAnswerModel
	const query = "What about the rubber case?"
	ps := m.Extract(c, query, 40, 90)
	if len(answer.Bullets(ps)) >= len(ps) {
		t.Fatalf("points %+v: no run of one speaker, the test proves less", ps)
	}
	ans, err := answer.Extractive{Model: &m, MinWords: 40, MaxWords: 90}.Answer(t.Context(), c, askmode.Answer, query, func(string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := AnswerText(c, ps), eval.ScoredText(ans.Text); got != want {
		t.Fatalf("training scores %q, the eval %q", got, want)
	}
}

// With a weight on citing a relevant turn, Ascend trades ROUGE for it:
// the sentence that matches the reference lies outside the query's
// relevant span, the one inside it shares fewer words; without the weight
// the first stays picked, with it the second is.
func TestAscendWithCiteWeight(t *testing.T) {
	outside := strings.Repeat("kinetic battery charges by shaking ", 10)
	inside := strings.Repeat("the battery question came up here ", 10)
	qs, m := twoSentenceQueries(inside, outside, outside, []qmsum.Span{{Start: 0, End: 0}})
	for _, tt := range []struct {
		citeWeight float64
		wantCites  float64
	}{{0, 0}, {2, 1}} {
		got := Evaluate(qs, AscendWith(qs, m, 3, tt.citeWeight, nil), 40, 90)
		if got.Cites != tt.wantCites {
			t.Errorf("cite weight %v: %.0f%% of answers cite the span (R-1 %.1f), want %.0f%%", tt.citeWeight, 100*got.Cites, got.R1, 100*tt.wantCites)
		}
	}
	if o := Objective(Eval{R1: 30, Cites: 0.5}, 0.1); o != 35 {
		t.Errorf("Objective = %v, want 30 + 0.1 × 50 = 35", o)
	}
}

// twoSentenceQueries returns five copies of a query about the battery
// whose context is two turns of one 50-word sentence each, covered (turn
// 0, with the query's terms by its features) and short (turn 1, a
// fragment by its features), each with room for one of them, and a start
// model that prefers the short one.
func twoSentenceQueries(covered, short, reference string, spans []qmsum.Span) ([]Query, answer.AnswerModel) {
	turns := []meetingctx.Turn{{Seq: 0, SpeakerName: "A", Text: covered}, {Seq: 1, SpeakerName: "B", Text: short}}
	var qs []Query
	for range 5 {
		q := Query{Query: "how does the battery charge", Reference: reference, Spans: spans,
			Ctx: answer.NewContext([]*meetingctx.Turn{&turns[0], &turns[1]}, []int{1, 2})}
		c := answer.Sentence{Turn: 0, Text: covered, Words: 50}
		c.F[answer.FCover] = 1
		sh := answer.Sentence{Turn: 1, Text: short, Words: 50}
		sh.F[answer.FShort] = 1
		q.Cands = []answer.Sentence{c, sh}
		qs = append(qs, q)
	}
	m := answer.DefaultAnswerModel
	m.Weights = make([]float64, answer.NumFeatures)
	m.Weights[answer.FShort] = 0.3
	m.Lambda, m.QuestionWords, m.SummaryWords = 1, 50, 50
	return qs, m
}
