package agendaeval

import (
	"context"
	"fmt"
	"io"
	"regexp"

	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/qmsum"
)

// Decision recall. A specific query is about a decision when it names one
// ("decide", "decision", "agree" but not "disagree", "conclude",
// "conclusion", "settle"); it is recalled when a decision item of the PR
// cites a turn inside one of its annotated spans.

var decisionQueryRE = regexp.MustCompile(`(?i)\b(decid|decision|agree|conclu|settl)`)

// IsDecisionQuery reports whether a specific query asks about a decision.
func IsDecisionQuery(q string) bool {
	return decisionQueryRE.MatchString(q)
}

// Decision runs, in the order of MeetingResult.DecisionRuns.
const (
	RunLocal       = "local (learned scorer)"
	RunCueOnly     = "cue-only, same cap"
	RunCueOnly30   = "cue-only, cap 30 (the former extractor's decisions)"
	RunEvenSpacing = "evenly spaced turns, same count as local"
)

// runNames lists the decision runs in report order.
var runNames = []string{RunLocal, RunCueOnly, RunCueOnly30, RunEvenSpacing}

// DecisionRun is one system's decisions on one meeting.
type DecisionRun struct {
	Name string
	// Items is the number of decisions; Queries the meeting's decision
	// queries and Hits those a decision cites a turn of.
	Items, Queries, Hits int
}

// decisionRuns scores the local document's decisions and the baselines'
// on the meeting's decision queries.
func decisionRuns(ctx context.Context, m *qmsum.Meeting, in prdoc.Input, doc prdoc.Document, spoken []int, maxDecisions int) ([]DecisionRun, error) {
	var queries []qmsum.SpecificQuery
	for _, q := range m.SpecificQueries {
		if IsDecisionQuery(q.Query) {
			queries = append(queries, q)
		}
	}
	seqsOf := func(ds []prdoc.Decision) []int {
		out := make([]int, len(ds))
		for i, d := range ds {
			out[i] = d.Seq
		}
		return out
	}
	runs := []DecisionRun{score(RunLocal, seqsOf(doc.Decisions), queries, spoken)}
	for _, b := range []struct {
		name string
		max  int
	}{{RunCueOnly, maxDecisions}, {RunCueOnly30, 30}} {
		d, err := prdoc.NewLocalWith(prdoc.LocalOptions{MaxDecisions: b.max, CueOnly: true}).Extract(ctx, in)
		if err != nil {
			return nil, err
		}
		runs = append(runs, score(b.name, seqsOf(d.Decisions), queries, spoken))
	}
	runs = append(runs, score(RunEvenSpacing, evenSeqs(len(in.Turns), len(doc.Decisions)), queries, spoken))
	return runs, nil
}

// evenSeqs is k turn seqs spread evenly over n turns (the middle of k
// equal parts).
func evenSeqs(n, k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = (2*i + 1) * n / (2 * k)
	}
	return out
}

// score counts the queries one of seqs (turn seqs, mapped to QMSum turn
// indices by spoken) falls in a span of.
func score(name string, seqs []int, queries []qmsum.SpecificQuery, spoken []int) DecisionRun {
	r := DecisionRun{Name: name, Items: len(seqs), Queries: len(queries)}
	for _, q := range queries {
		if cites(seqs, q.Spans, spoken) {
			r.Hits++
		}
	}
	return r
}

func cites(seqs []int, spans []qmsum.Span, spoken []int) bool {
	for _, s := range seqs {
		if s < 0 || s >= len(spoken) {
			continue
		}
		for _, sp := range spans {
			if sp.Contains(spoken[s]) {
				return true
			}
		}
	}
	return false
}

// DecisionTotals pools one run over the meetings.
type DecisionTotals struct {
	Name                 string
	Items, Queries, Hits int
	Meetings             int
	MeetingsWithQueries  int
	ItemsOnQueryMeetings int
}

// Decisions pools every run over the report's meetings.
func (r Report) Decisions() []DecisionTotals {
	out := make([]DecisionTotals, len(runNames))
	for i, n := range runNames {
		out[i].Name = n
	}
	for _, m := range r.Meetings {
		for i, run := range m.DecisionRuns {
			t := &out[i]
			t.Items += run.Items
			t.Queries += run.Queries
			t.Hits += run.Hits
			t.Meetings++
			if run.Queries > 0 {
				t.MeetingsWithQueries++
				t.ItemsOnQueryMeetings += run.Items
			}
		}
	}
	return out
}

// decisionsMarkdown writes the decision recall of every run and the mean
// list lengths per meeting.
func (r Report) decisionsMarkdown(w io.Writer) {
	fmt.Fprintf(w, "\n| decisions | recall (decision queries cited) | decisions per meeting |\n|---|---:|---:|\n")
	for _, t := range r.Decisions() {
		fmt.Fprintf(w, "| %s | %d/%d = %.2f | %.2f |\n", t.Name, t.Hits, t.Queries, ratio(t.Hits, t.Queries), ratio(t.Items, t.Meetings))
	}
	var acts, qs int
	for _, m := range r.Meetings {
		acts += m.Actions
		qs += m.Questions
	}
	n := len(r.Meetings)
	fmt.Fprintf(w, "\nPer meeting (local): %.2f decisions, %.2f action items, %.2f open questions over %d meetings\n",
		ratio(r.Decisions()[0].Items, n), ratio(acts, n), ratio(qs, n), n)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
