// Package eval runs QMSum meetings through a running agent-api and scores
// its topics: Pk and WindowDiff of the L1 segmentation against the
// annotated topic_list, recall@5 of topic search over the specific
// queries, and how often the answer to a specific query cites a turn
// inside one of its annotated relevant spans.
package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/segeval"
)

// Options shape a run.
type Options struct {
	// Batch is utterances per request (default 100).
	Batch int
	// K is the number of search results a query may be found in
	// (default 5).
	K int
	// Limit caps the meetings evaluated (0: all).
	Limit int
	// Settle bounds how long to wait for L1 after a meeting ends
	// (default 5m).
	Settle time.Duration
	// Progress gets one line per meeting.
	Progress io.Writer
}

// MeetingResult is one meeting's scores.
type MeetingResult struct {
	Name      string
	MeetingID string
	Turns     int
	RefTopics int
	HypTopics int
	K         int // the Pk/WindowDiff window
	Pk        float64
	WD        float64
	Queries   int
	Found     int
	// Cited counts the queries whose answer cites a turn inside a gold
	// span.
	Cited int
}

// Report is the whole run.
type Report struct {
	Meetings []MeetingResult
}

// Run evaluates every *.json meeting in dir.
func Run(ctx context.Context, client *apiclient.Client, dir string, o Options) (Report, error) {
	if o.Batch <= 0 {
		o.Batch = 100
	}
	if o.K <= 0 {
		o.K = 5
	}
	if o.Settle <= 0 {
		o.Settle = 5 * time.Minute
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return Report{}, err
	}
	if len(files) == 0 {
		return Report{}, fmt.Errorf("no QMSum meetings (*.json) in %s", dir)
	}
	slices.Sort(files)
	if o.Limit > 0 && len(files) > o.Limit {
		files = files[:o.Limit]
	}
	var rep Report
	for _, f := range files {
		r, err := evalMeeting(ctx, client, f, o)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		rep.Meetings = append(rep.Meetings, r)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%-10s Pk %.3f  WD %.3f  recall@%d %d/%d\n", r.Name, r.Pk, r.WD, o.K, r.Found, r.Queries)
		}
	}
	return rep, nil
}

func evalMeeting(ctx context.Context, client *apiclient.Client, file string, o Options) (MeetingResult, error) {
	m, err := qmsum.Load(file)
	if err != nil {
		return MeetingResult{}, err
	}
	spoken := qmsum.SpokenTurns(m)
	utts := qmsum.Utterances(m, "eval-"+qmsum.Slug(m.Name))
	if len(utts) == 0 {
		return MeetingResult{}, errors.New("meeting has no spoken turns")
	}
	mt, err := client.CreateMeeting(ctx, apiclient.CreateMeetingRequest{Title: "eval " + m.Name, RoomName: "eval-" + m.Name, Language: "en"})
	if err != nil {
		return MeetingResult{}, err
	}
	for b := 0; b < len(utts); b += o.Batch {
		if _, err := client.PostUtterances(ctx, mt.ID, utts[b:min(b+o.Batch, len(utts))]); err != nil {
			return MeetingResult{}, err
		}
	}
	if _, err := client.EndMeeting(ctx, mt.ID); err != nil {
		return MeetingResult{}, err
	}
	if err := client.WaitTopics(ctx, mt.ID, len(utts)-1, o.Settle); err != nil {
		return MeetingResult{}, err
	}
	tl, err := client.Topics(ctx, mt.ID)
	if err != nil {
		return MeetingResult{}, err
	}

	ref := segeval.ReferenceLabels(m)
	hyp := segeval.HypothesisLabels(len(m.Turns), toTurnSpans(tl.Topics, spoken))
	k := segeval.DefaultK(ref)
	res := MeetingResult{
		Name: m.Name, MeetingID: mt.ID, Turns: len(m.Turns), RefTopics: len(m.Topics), HypTopics: len(tl.Topics),
		K: k, Pk: segeval.Pk(ref, hyp, k), WD: segeval.WindowDiff(ref, hyp, k),
	}
	for _, q := range m.SpecificQueries {
		if len(q.Spans) == 0 {
			continue
		}
		res.Queries++
		hits, err := client.SearchTopics(ctx, mt.ID, q.Query, o.K)
		if err != nil {
			return MeetingResult{}, err
		}
		if found(hits.Results, q.Spans, spoken) {
			res.Found++
		}
		ans, err := client.Ask(ctx, mt.ID, apiclient.AskRequest{Question: q.Query})
		if err != nil {
			return MeetingResult{}, err
		}
		if citesGold(ans.Citations, q.Spans, spoken) {
			res.Cited++
		}
	}
	return res, nil
}

// toTurnSpans maps topics over utterance seqs onto QMSum turn indexes.
func toTurnSpans(ts []apiclient.Topic, spoken []int) []meetingctx.Topic {
	out := make([]meetingctx.Topic, 0, len(ts))
	for _, t := range ts {
		if t.StartSeq < 0 || t.EndSeq >= len(spoken) || t.EndSeq < t.StartSeq {
			continue
		}
		out = append(out, meetingctx.Topic{StartSeq: spoken[t.StartSeq], EndSeq: spoken[t.EndSeq]})
	}
	return out
}

// found reports whether a hit overlaps a gold span (turn indexes).
func found(hits []apiclient.ScoredTopic, gold []qmsum.Span, spoken []int) bool {
	for _, h := range hits {
		if h.StartSeq < 0 || h.EndSeq >= len(spoken) {
			continue
		}
		lo, hi := spoken[h.StartSeq], spoken[h.EndSeq]
		for _, g := range gold {
			if lo <= g.End && g.Start <= hi {
				return true
			}
		}
	}
	return false
}

// citesGold reports whether a citation names a turn inside a gold span.
func citesGold(cs []apiclient.Citation, gold []qmsum.Span, spoken []int) bool {
	for _, c := range cs {
		if c.Seq < 0 || c.Seq >= int64(len(spoken)) {
			continue
		}
		turn := spoken[c.Seq]
		for _, g := range gold {
			if g.Start <= turn && turn <= g.End {
				return true
			}
		}
	}
	return false
}

// Summary are the overall figures: mean Pk and WindowDiff over meetings,
// and recall over all queries.
type Summary struct {
	Meetings int
	Pk, WD   float64
	Queries  int
	Found    int
	Cited    int
}

// CitedRate is the share of queries whose answer cites a gold turn.
func (s Summary) CitedRate() float64 {
	if s.Queries == 0 {
		return 0
	}
	return float64(s.Cited) / float64(s.Queries)
}

// Recall is found queries over all queries.
func (s Summary) Recall() float64 {
	if s.Queries == 0 {
		return 0
	}
	return float64(s.Found) / float64(s.Queries)
}

// Summarize averages a report.
func (r Report) Summarize() Summary {
	var s Summary
	for _, m := range r.Meetings {
		s.Meetings++
		s.Pk += m.Pk
		s.WD += m.WD
		s.Queries += m.Queries
		s.Found += m.Found
		s.Cited += m.Cited
	}
	if s.Meetings > 0 {
		s.Pk /= float64(s.Meetings)
		s.WD /= float64(s.Meetings)
	}
	return s
}

// Markdown writes the per-meeting table and the overall line.
func (r Report) Markdown(w io.Writer, k int) {
	ms := append([]MeetingResult(nil), r.Meetings...)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Name < ms[j].Name })
	fmt.Fprintf(w, "| meeting | turns | ref topics | L1 topics | k | Pk | WindowDiff | recall@%d | answer cites gold |\n", k)
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, m := range ms {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %.3f | %.3f | %d/%d | %d/%d |\n", m.Name, m.Turns, m.RefTopics, m.HypTopics, m.K, m.Pk, m.WD, m.Found, m.Queries, m.Cited, m.Queries)
	}
	s := r.Summarize()
	fmt.Fprintf(w, "| **all (%d)** | | | | | **%.3f** | **%.3f** | **%.3f** (%d/%d) | **%.3f** (%d/%d) |\n", s.Meetings, s.Pk, s.WD, s.Recall(), s.Found, s.Queries, s.CitedRate(), s.Cited, s.Queries)
}
