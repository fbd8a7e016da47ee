// Package decisiontrain learns the local PR extractor's decision scorer
// from QMSum: every decision candidate of a meeting (prdoc's rules) is an
// example, labelled positive when its turn lies in the annotated span of a
// specific query about a decision (agendaeval.IsDecisionQuery) and it
// shares MinAnswerTerms content terms with that query's reference answer. The model
// is prdoc's logistic regression, fitted by full-batch gradient descent
// from zero weights, so the same data gives the same weights.
package decisiontrain

import (
	"context"
	"fmt"
	"io"

	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/textutil"
	"github.com/mithub/mithub/services/mithubctl/internal/agendaeval"
)

// Training settings, fixed so that runs are reproducible.
const (
	Epochs = 3000
	Rate   = 0.5
	Lambda = 0.01
)

// Data is the labelled candidates of a directory of meetings.
type Data struct {
	X        [][]float64
	Y        []bool
	Meetings int
	Queries  int
	// Reachable counts the queries a candidate lies in a span of: the
	// recall of an unbounded list.
	Reachable int
}

// Load reads every meeting of dir and labels its decision candidates.
func Load(ctx context.Context, dir string, progress io.Writer) (Data, error) {
	files, err := qmsum.MeetingFiles(dir)
	if err != nil {
		return Data{}, err
	}
	var d Data
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return d, err
		}
		m, err := qmsum.Load(f)
		if err != nil {
			return d, err
		}
		var spans []qmsum.Span
		var queries []qmsum.SpecificQuery
		for _, q := range m.SpecificQueries {
			if agendaeval.IsDecisionQuery(q.Query) {
				spans = append(spans, q.Spans...)
				queries = append(queries, q)
			}
		}
		if len(spans) == 0 {
			continue
		}
		d.Meetings++
		d.Queries += len(queries)
		spoken := qmsum.SpokenTurns(m)
		cands := prdoc.DecisionCandidates(Turns(m))
		for _, c := range cands {
			d.X = append(d.X, c.Features)
			d.Y = append(d.Y, positive(c, queries, spoken))
		}
		for _, q := range queries {
			for _, c := range cands {
				if inSpans(spoken[c.Seq], q.Spans) {
					d.Reachable++
					break
				}
			}
		}
	}
	if progress != nil {
		pos := 0
		for _, y := range d.Y {
			if y {
				pos++
			}
		}
		fmt.Fprintf(progress, "%d meetings with %d decision queries (%d with a candidate in their span): %d candidates, %d in a decision span\n",
			d.Meetings, d.Queries, d.Reachable, len(d.Y), pos)
	}
	return d, nil
}

// Turns are a meeting's spoken turns as prdoc turns, seq k being the k-th
// spoken turn.
func Turns(m *qmsum.Meeting) []prdoc.Turn {
	utts := qmsum.Utterances(m, m.Name)
	out := make([]prdoc.Turn, len(utts))
	for i, u := range utts {
		out[i] = prdoc.Turn{ID: int64(i + 1), Seq: i, Speaker: u.SpeakerName, Text: u.Text, StartMS: u.StartMS, EndMS: u.EndMS}
	}
	return out
}

// MinAnswerTerms is how many content terms a candidate must share with a
// decision query's reference answer, besides lying in its span, to be a
// positive example: the span holds the whole discussion, the answer
// names what was decided.
const MinAnswerTerms = 2

func positive(c prdoc.DecisionExample, queries []qmsum.SpecificQuery, spoken []int) bool {
	for _, q := range queries {
		if !inSpans(spoken[c.Seq], q.Spans) {
			continue
		}
		answer := map[string]bool{}
		for _, w := range textutil.Terms(nil, q.Answer) {
			answer[w] = true
		}
		n := 0
		for _, w := range textutil.Terms(nil, c.Text) {
			if answer[w] {
				n++
				answer[w] = false
			}
		}
		if n >= MinAnswerTerms {
			return true
		}
	}
	return false
}

func inSpans(i int, spans []qmsum.Span) bool {
	for _, s := range spans {
		if s.Contains(i) {
			return true
		}
	}
	return false
}

// Train fits the model and says what it was trained on.
func Train(d Data, source string) prdoc.DecisionModel {
	m := prdoc.TrainDecisionModel(d.X, d.Y, Epochs, Rate, Lambda)
	m.Trained = fmt.Sprintf("%s: %d candidates of %d meetings with %d decision queries; logistic regression, %d epochs, rate %g, L2 %g",
		source, len(d.Y), d.Meetings, d.Queries, Epochs, Rate, Lambda)
	for k, w := range m.Weights {
		m.Weights[k] = float64(int64(w*1e4)) / 1e4
	}
	return m
}
