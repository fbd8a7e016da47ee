// Package turntrain learns the fusion weights of turn search
// (meetingctx.TurnWeights) from QMSum meetings: each meeting is segmented
// offline with the local provider, exactly as the live engine does, and
// each specific query's features are computed over the meeting's turns;
// the weights are then chosen by coordinate ascent on the mean of MRR and
// recall@10 of the annotated relevant turns. Same meetings in, same
// weights out: the meetings are read in name order, every step is
// deterministic, and the weights are written rounded.
package turntrain

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/textutil"
)

// Query is one specific query's features over its meeting's turns, and
// which turns are relevant.
type Query struct {
	Features [][meetingctx.TurnFeatureCount]float64
	Reach    []bool
	Relevant []bool
}

// Options shape a run.
type Options struct {
	// Limit caps the meetings read (0: all).
	Limit int
	// Window is the half-width of the context features (default 3).
	Window int
	// QueryStopwords learns query stopwords (QueryStopwords) and drops
	// them from the queries. Off by default: on QMSum val they cost
	// recall@10 (see README).
	QueryStopwords bool
	// Progress gets one line per meeting (nil: none).
	Progress io.Writer
}

// Load segments every meeting of dir offline and returns the features of
// its specific queries.
func Load(ctx context.Context, dir string, o Options) ([]Query, Stats, error) {
	if o.Window <= 0 {
		o.Window = 3
	}
	files, err := qmsum.MeetingFiles(dir)
	if err != nil {
		return nil, Stats{}, err
	}
	if o.Limit > 0 && len(files) > o.Limit {
		files = files[:o.Limit]
	}
	emb := segment.NewEmbedder(0)
	src := &turnSource{turns: map[string][]meetingctx.Turn{}}
	eng := meetingctx.NewEngine(meetingctx.EngineDeps{
		Segmenter: segment.NewSegmenter(segment.SegmenterConfig{}), Summarizer: segment.NewSummarizer(), Embedder: emb,
		Store: discard{}, Turns: src, MaxConcurrentLLM: 1,
	})
	defer eng.Close(time.Minute)
	var meetings []*qmsum.Meeting
	for _, f := range files {
		m, err := qmsum.Load(f)
		if err != nil {
			return nil, Stats{}, err
		}
		meetings = append(meetings, m)
	}
	w := meetingctx.TurnWeights{Window: o.Window}
	if o.QueryStopwords {
		w.QueryStop = QueryStopwords(meetings)
	}
	var out []Query
	for _, m := range meetings {
		qs, err := meetingQueries(ctx, eng, src, m, w)
		if err != nil {
			return nil, Stats{}, fmt.Errorf("%s: %w", m.Name, err)
		}
		out = append(out, qs...)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%-12s %4d turns %3d queries\n", m.Name, len(m.Turns), len(qs))
		}
	}
	return out, Stats{Window: o.Window, QueryStop: w.QueryStop}, nil
}

// Stats are what Load learned besides the features: the context window
// and the query stopwords they were computed with.
type Stats struct {
	Window    int
	QueryStop []string
}

// stopShare is the share of training queries a term must appear in to be
// considered as a query stopword, and stopLift the most a stopword may be
// enriched in the relevant turns of the queries that use it.
const (
	stopShare = 0.02
	stopLift  = 2.0
)

// QueryStopwords are the terms of how questions are asked: in at least
// stopShare of the meetings' specific queries, and, over those queries,
// at most stopLift times as frequent in the relevant turns as in the
// others ("discuss" and "summarize" qualify; "remote", frequent in
// questions about remote controls and in their answers, does not).
// Sorted.
func QueryStopwords(ms []*qmsum.Meeting) []string {
	df := map[string]int{}
	n := 0
	for _, m := range ms {
		for _, q := range m.SpecificQueries {
			n++
			for t := range termSet(q.Query) {
				df[t]++
			}
		}
	}
	cand := map[string]bool{}
	for t, c := range df {
		if n > 0 && float64(c) >= stopShare*float64(n) {
			cand[t] = true
		}
	}
	type counts struct{ relIn, rel, othIn, oth float64 }
	lift := map[string]*counts{}
	for t := range cand {
		lift[t] = &counts{}
	}
	for _, m := range ms {
		sets := make([]map[string]bool, len(m.Turns))
		for i, t := range m.Turns {
			sets[i] = termSet(t.Content)
		}
		for _, q := range m.SpecificQueries {
			for t := range termSet(q.Query) {
				c, ok := lift[t]
				if !ok {
					continue
				}
				for i := range m.Turns {
					in := 0.0
					if sets[i][t] {
						in = 1
					}
					rel := false
					for _, sp := range q.Spans {
						rel = rel || sp.Contains(i)
					}
					if rel {
						c.rel++
						c.relIn += in
					} else {
						c.oth++
						c.othIn += in
					}
				}
			}
		}
	}
	var out []string
	for t, c := range lift {
		if c.rel == 0 || c.oth == 0 || c.othIn == 0 {
			continue
		}
		if (c.relIn/c.rel)/(c.othIn/c.oth) <= stopLift {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// MeetingTurns converts a QMSum meeting's spoken turns into context turns
// with seqs 0.. (the k-th spoken turn is seq k), as replay sends them.
func MeetingTurns(m *qmsum.Meeting) []meetingctx.Turn {
	utts := qmsum.Utterances(m, "train")
	turns := make([]meetingctx.Turn, len(utts))
	for i, u := range utts {
		turns[i] = meetingctx.Turn{Seq: i, SegmentID: u.SegmentID, SpeakerID: u.SpeakerID, SpeakerName: u.SpeakerName,
			Text: u.Text, StartMS: u.StartMS, EndMS: u.EndMS, Confidence: 1, Tokens: len(u.Text) / 4}
	}
	return turns
}

func meetingQueries(ctx context.Context, eng *meetingctx.Engine, src *turnSource, m *qmsum.Meeting, w meetingctx.TurnWeights) ([]Query, error) {
	turns := MeetingTurns(m)
	if len(turns) == 0 {
		return nil, nil
	}
	spoken := qmsum.SpokenTurns(m)
	mgr := meetingctx.New("train", m.Name, meetingctx.Config{}, eng)
	src.set(m.Name, turns)
	if _, err := mgr.Apply(turns); err != nil {
		return nil, err
	}
	// Ended, as the evaluation's meetings are: the topics are the
	// end-of-meeting pass's.
	mgr.Finish()
	if !mgr.WaitL1(ctx, 5*time.Minute) {
		return nil, fmt.Errorf("segmentation did not finish")
	}
	if snap := mgr.Snapshot(); len(snap.Pending) > 0 || len(snap.Topics) == 0 {
		return nil, fmt.Errorf("segmentation left %d turns pending and %d topics", len(snap.Pending), len(snap.Topics))
	}
	vecs, err := mgr.EmbedTurns(ctx, turns)
	if err != nil {
		return nil, err
	}
	var out []Query
	for _, sq := range m.SpecificQueries {
		if len(sq.Spans) == 0 {
			continue
		}
		rel := make([]bool, len(turns))
		any := false
		for k, ti := range spoken {
			for _, s := range sq.Spans {
				if s.Contains(ti) {
					rel[k], any = true, true
				}
			}
		}
		if !any {
			continue
		}
		q := mgr.TurnQuery(ctx, sq.Query, turns, vecs)
		out = append(out, Query{Features: meetingctx.TurnFeatures(q, w), Reach: meetingctx.TurnReach(q, w), Relevant: rel})
	}
	return out, nil
}

// Metrics are the figures training maximises.
type Metrics struct {
	MRR, Recall10 float64
}

// Evaluate scores weights w on qs: mean reciprocal rank of the first
// relevant turn, and the share of queries with a relevant turn in the top
// 10. Ties rank the earlier turn first, as RankTurns does.
func Evaluate(qs []Query, w [meetingctx.TurnFeatureCount]float64) Metrics {
	var m Metrics
	if len(qs) == 0 {
		return m
	}
	for _, q := range qs {
		rank := firstRelevantRank(q, w)
		if rank > 0 {
			m.MRR += 1 / float64(rank)
			if rank <= 10 {
				m.Recall10++
			}
		}
	}
	m.MRR /= float64(len(qs))
	m.Recall10 /= float64(len(qs))
	return m
}

// firstRelevantRank is the 1-based rank of the best-scored relevant turn
// among the turns the query reaches (meetingctx.TurnReach), 0 when it
// reaches none.
func firstRelevantRank(q Query, w [meetingctx.TurnFeatureCount]float64) int {
	best, bestI := math.Inf(-1), -1
	scores := make([]float64, len(q.Features))
	for i, f := range q.Features {
		if !q.Reach[i] {
			scores[i] = math.NaN()
			continue
		}
		s := 0.0
		for j := range f {
			s += w[j] * f[j]
		}
		scores[i] = s
		if q.Relevant[i] && s > best {
			best, bestI = s, i
		}
	}
	if bestI < 0 {
		return 0
	}
	rank := 1
	for i, s := range scores {
		if math.IsNaN(s) {
			continue
		}
		if s > best || s == best && i < bestI {
			rank++
		}
	}
	return rank
}

// objective is what coordinate ascent maximises.
func objective(m Metrics) float64 { return m.MRR + m.Recall10 }

// grid are the values each weight may take.
var grid = []float64{0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3}

// Train picks weights by coordinate ascent from all-ones: each round
// tries every grid value for each weight in turn, keeping a value only
// when it improves the objective, until a round changes nothing (at most
// rounds rounds).
func Train(qs []Query, rounds int, progress io.Writer) [meetingctx.TurnFeatureCount]float64 {
	var w [meetingctx.TurnFeatureCount]float64
	for i := range w {
		w[i] = 1
	}
	best := objective(Evaluate(qs, w))
	if progress != nil {
		b := Evaluate(qs, [meetingctx.TurnFeatureCount]float64{1})
		fmt.Fprintf(progress, "%d queries; BM25 over turns alone: MRR %.4f recall@10 %.4f\n", len(qs), b.MRR, b.Recall10)
	}
	for r := 0; r < rounds; r++ {
		changed := false
		for j := range w {
			for _, v := range grid {
				if v == w[j] {
					continue
				}
				c := w
				c[j] = v
				if o := objective(Evaluate(qs, c)); o > best+1e-12 {
					best, w, changed = o, c, true
				}
			}
		}
		if progress != nil {
			m := Evaluate(qs, w)
			fmt.Fprintf(progress, "round %d: weights %v MRR %.4f recall@10 %.4f\n", r+1, w, m.MRR, m.Recall10)
		}
		if !changed {
			break
		}
	}
	return w
}

func termSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, t := range textutil.Stemmed(nil, s) {
		out[t] = true
	}
	return out
}

// discard is a topic store that keeps nothing: training needs the topics
// in memory only.
type discard struct{}

// turnSource serves the end-of-meeting pass the turns of the meetings
// being replayed.
type turnSource struct {
	mu    sync.Mutex
	turns map[string][]meetingctx.Turn
}

func (s *turnSource) set(meetingID string, turns []meetingctx.Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns[meetingID] = turns
}

func (s *turnSource) LoadTurns(_ context.Context, _, meetingID string, upTo int) ([]meetingctx.Turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := s.turns[meetingID]
	if upTo >= len(ts) {
		return nil, fmt.Errorf("meeting %s: turn %d not replayed", meetingID, upTo)
	}
	return ts[:upTo+1], nil
}

func (discard) SaveTopics(context.Context, string, string, int, []meetingctx.Topic) error { return nil }
