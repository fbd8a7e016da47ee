// Package eval runs QMSum meetings through a running agent-api and scores
// what it says against the annotations, beside baselines computed in the
// same run:
//
//   - segmentation: Pk, WindowDiff and boundary F1 (within ±3 turns) of
//     the L1 topics against the annotated topic_list, and the number of
//     topics beside the annotated count; baselines one topic, an even
//     split into the annotated count, and fixed windows of 25 and 120
//     turns;
//   - retrieval at the turn level, for each specific query with relevant
//     spans: recall@5/10/20 (the share of queries with a relevant turn
//     among the first k hits) and MRR (1/rank of the first relevant hit,
//     0 beyond 100) of GET /v1/meetings/{id}/search, against BM25 over
//     turns and a random order; and whether topic search's top 3 topics
//     overlap a relevant span, for the L1 topics and (ranked by BM25 over
//     their text) for each baseline segmentation, with the topic counts
//     beside, so a degenerate segmentation is visible;
//   - answers, for each specific query: POST /v1/meetings/{id}/ask,
//     scored against the annotated reference answer with ROUGE-1/2/L F1
//     (pkg/rouge: rouge-score's tokenisation and stemming) over
//     ScoredText, whether a citation is inside an annotated span, and the
//     answer's length in words; beside the BM25-best turns and a random
//     run of turns, each cut to the answer's length.
//
// A meeting that ends with no topics, or with turns still pending after
// the settle bound, fails the run instead of giving figures.
package eval

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"path/filepath"
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
	// Limit caps the meetings evaluated (0: all).
	Limit int
	// Settle bounds how long to wait for L1 after a meeting ends
	// (default 5m).
	Settle time.Duration
	// Progress gets one line per meeting.
	Progress io.Writer
}

// Method names, in report order.
const (
	Ours    = "mithub"
	One     = "one topic"
	Even    = "even split"
	Win25   = "windows of 25"
	Win120  = "windows of 120"
	BM25    = "BM25 over turns"
	Random  = "random turns"
	searchK = 100
)

// Cutoffs of recall@k.
var Cutoffs = []int{5, 10, 20}

// Seg are a segmentation's scores on one meeting.
type Seg struct {
	Topics int     `json:"topics"`
	Pk     float64 `json:"pk"`
	WD     float64 `json:"window_diff"`
	F1     float64 `json:"boundary_f1"`
	// TopicTop3 counts queries whose top 3 topics overlap a relevant span.
	TopicTop3 int `json:"topic_top3_overlap"`
}

// Ret are a turn ranking's scores on one meeting: Found[k] queries with a
// relevant turn in the top k, and the sum of reciprocal ranks.
type Ret struct {
	Found  map[int]int `json:"found_at"`
	RRSum  float64     `json:"rr_sum"`
	NoHits int         `json:"queries_without_hits"`
}

// MeetingResult is one meeting's scores.
type MeetingResult struct {
	Name      string         `json:"name"`
	MeetingID string         `json:"meeting_id"`
	Turns     int            `json:"turns"`
	RefTopics int            `json:"annotated_topics"`
	K         int            `json:"pk_window"`
	Queries   int            `json:"queries"`
	Seg       map[string]Seg `json:"segmentation"`
	Ret       map[string]Ret `json:"retrieval"`
	// Ans are the answer methods' sums; Answers MitHub's answers.
	Ans     map[string]Ans `json:"answers"`
	Answers []QueryAnswer  `json:"answer_details"`
}

// Report is the whole run.
type Report struct {
	Meetings []MeetingResult `json:"meetings"`
	Overall  Overall         `json:"overall"`
}

// ErrDegenerate: the service's state cannot give honest figures.
var ErrDegenerate = errors.New("degenerate state")

// Run evaluates every *.json meeting in dir.
func Run(ctx context.Context, client *apiclient.Client, dir string, o Options) (Report, error) {
	if o.Batch <= 0 {
		o.Batch = 100
	}
	if o.Settle <= 0 {
		o.Settle = 5 * time.Minute
	}
	files, err := qmsum.MeetingFiles(dir)
	if err != nil {
		return Report{}, err
	}
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
			s, rt := r.Seg[Ours], r.Ret[Ours]
			a, ab := r.Ans[AnsOurs], r.Ans[AnsBM25]
			fmt.Fprintf(o.Progress, "%-10s topics %d/%d  Pk %.3f  WD %.3f  F1 %.3f  recall@10 %d/%d (BM25 %d)  R-1 %.1f (BM25 %.1f)\n",
				r.Name, s.Topics, r.RefTopics, s.Pk, s.WD, s.F1, rt.Found[10], r.Queries, r.Ret[BM25].Found[10],
				100*a.R1/float64(max(a.N, 1)), 100*ab.R1/float64(max(ab.N, 1)))
		}
	}
	rep.Overall = rep.summarize()
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
		return MeetingResult{}, fmt.Errorf("%w: turns still pending after the meeting ended: %v", ErrDegenerate, err)
	}
	tl, err := client.Topics(ctx, mt.ID)
	if err != nil {
		return MeetingResult{}, err
	}
	if len(tl.Topics) == 0 {
		return MeetingResult{}, fmt.Errorf("%w: no topics after the meeting ended", ErrDegenerate)
	}
	if tl.PendingTurns > 0 {
		return MeetingResult{}, fmt.Errorf("%w: %d turns pending after the meeting ended", ErrDegenerate, tl.PendingTurns)
	}

	n := len(m.Turns)
	ref := segeval.ReferenceLabels(m)
	refCount := segeval.Segments(ref)
	res := MeetingResult{Name: m.Name, MeetingID: mt.ID, Turns: n, RefTopics: refCount, K: segeval.DefaultK(ref),
		Seg: map[string]Seg{}, Ret: map[string]Ret{}, Ans: map[string]Ans{}}
	segs := map[string][]meetingctx.Topic{
		Ours:   toTurnSpans(tl.Topics, spoken),
		One:    {{StartSeq: 0, EndSeq: n - 1}},
		Even:   evenSplit(n, refCount),
		Win25:  windows(n, 25),
		Win120: windows(n, 120),
	}
	if len(segs[Ours]) == 0 {
		return MeetingResult{}, fmt.Errorf("%w: no topic maps onto the meeting's turns", ErrDegenerate)
	}
	for name, ts := range segs {
		hyp := segeval.HypothesisLabels(n, ts)
		_, _, f1 := segeval.BoundaryPRF(ref, hyp, segeval.BoundaryTolerance)
		res.Seg[name] = Seg{Topics: len(ts), Pk: segeval.Pk(ref, hyp, res.K), WD: segeval.WindowDiff(ref, hyp, res.K), F1: f1}
	}

	turns := make([]meetingctx.Turn, len(spoken))
	for k, ti := range spoken {
		turns[k] = meetingctx.Turn{Seq: k, Text: m.Turns[ti].Content}
	}
	for _, name := range []string{Ours, BM25, Random} {
		res.Ret[name] = Ret{Found: map[int]int{}}
	}
	rng := rand.New(rand.NewPCG(1, seedOf(m.Name)))
	ansRng := rand.New(rand.NewPCG(2, seedOf(m.Name)))
	for _, q := range m.SpecificQueries {
		if len(q.Spans) == 0 {
			continue
		}
		res.Queries++
		relevant := func(seq int) bool {
			if seq < 0 || seq >= len(spoken) {
				return false
			}
			for _, s := range q.Spans {
				if s.Contains(spoken[seq]) {
					return true
				}
			}
			return false
		}
		hits, err := client.SearchTurns(ctx, mt.ID, q.Query, searchK)
		if err != nil {
			return MeetingResult{}, err
		}
		ours := make([]int, len(hits.Hits))
		for i, h := range hits.Hits {
			ours[i] = h.Seq
		}
		score(res.Ret, Ours, ours, relevant)
		bm := meetingctx.RankTurns(meetingctx.TurnQuery{Query: q.Query, Turns: turns}, meetingctx.TurnWeights{BM25: 1}, searchK)
		bmSeqs := make([]int, len(bm))
		for i, h := range bm {
			bmSeqs[i] = h.Seq
		}
		score(res.Ret, BM25, bmSeqs, relevant)
		score(res.Ret, Random, rng.Perm(len(turns))[:min(searchK, len(turns))], relevant)

		qa, err := answerQuery(ctx, client, mt.ID, q, turns, relevant, ansRng, res.Ans)
		if err != nil {
			return MeetingResult{}, err
		}
		res.Answers = append(res.Answers, qa)

		top, err := client.SearchTopics(ctx, mt.ID, q.Query, 3)
		if err != nil {
			return MeetingResult{}, err
		}
		if found(top.Results, q.Spans, spoken) {
			addTop3(res.Seg, Ours)
		}
		for _, name := range []string{One, Even, Win25, Win120} {
			if overlaps(topSegments(m, segs[name], q.Query, 3), q.Spans) {
				addTop3(res.Seg, name)
			}
		}
	}
	return res, nil
}

func addTop3(m map[string]Seg, name string) {
	s := m[name]
	s.TopicTop3++
	m[name] = s
}

// score adds a ranking's recall@k and reciprocal rank for one query.
func score(m map[string]Ret, name string, ranked []int, relevant func(int) bool) {
	r := m[name]
	if len(ranked) == 0 {
		r.NoHits++
	}
	for i, seq := range ranked {
		if relevant(seq) {
			r.RRSum += 1 / float64(i+1)
			for _, k := range Cutoffs {
				if i < k {
					r.Found[k]++
				}
			}
			break
		}
	}
	m[name] = r
}

func seedOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// evenSplit cuts n turns into k segments of (nearly) equal length.
func evenSplit(n, k int) []meetingctx.Topic {
	k = max(min(k, n), 1)
	out := make([]meetingctx.Topic, k)
	for i := range out {
		out[i] = meetingctx.Topic{StartSeq: i * n / k, EndSeq: (i+1)*n/k - 1}
	}
	return out
}

// windows cuts n turns into segments of size turns (the last shorter).
func windows(n, size int) []meetingctx.Topic {
	var out []meetingctx.Topic
	for s := 0; s < n; s += size {
		out = append(out, meetingctx.Topic{StartSeq: s, EndSeq: min(s+size, n) - 1})
	}
	return out
}

// topSegments ranks segments (turn index spans) by BM25 of the query over
// their text and returns the best k that match at all.
func topSegments(m *qmsum.Meeting, segs []meetingctx.Topic, query string, k int) []meetingctx.Topic {
	docs := make([]meetingctx.Turn, len(segs))
	for i, s := range segs {
		var text []byte
		for t := s.StartSeq; t <= s.EndSeq && t < len(m.Turns); t++ {
			text = append(append(text, m.Turns[t].Content...), ' ')
		}
		docs[i] = meetingctx.Turn{Seq: i, Text: string(text)}
	}
	hits := meetingctx.RankTurns(meetingctx.TurnQuery{Query: query, Turns: docs}, meetingctx.TurnWeights{BM25: 1}, k)
	out := make([]meetingctx.Topic, len(hits))
	for i, h := range hits {
		out[i] = segs[h.Seq]
	}
	return out
}

func overlaps(ts []meetingctx.Topic, gold []qmsum.Span) bool {
	for _, t := range ts {
		for _, g := range gold {
			if t.StartSeq <= g.End && g.Start <= t.EndSeq {
				return true
			}
		}
	}
	return false
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
