package bench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/textutil"
	"github.com/mithub/mithub/pkg/tokens"
)

// ContextOptions shape the context-engine benchmark.
type ContextOptions struct {
	// DataDir is the QMSum directory (val split used).
	DataDir string
	// Meetings cached for the heap measurement (default 50).
	Meetings int
	// TopicsTotal and TopicMeetings size the cross-meeting search set
	// (default 10,000 topics over 200 meetings); it needs Store.
	TopicsTotal, TopicMeetings int
	// Store, when set, is used for the cross-meeting search measurement.
	Store  *store.Store
	Tenant string
	// EmbedDim of the local embedder (default 256).
	EmbedDim int
}

// memTopics keeps saved topics in memory, so engine figures exclude
// PostgreSQL.
type memTopics struct{}

func (memTopics) SaveTopics(context.Context, string, string, int, []meetingctx.Topic) error {
	return nil
}

// Percentiles of a latency sample.
type Percentiles struct {
	N             int
	P50, P99, Max time.Duration
}

func percentiles(d []time.Duration) Percentiles {
	if len(d) == 0 {
		return Percentiles{}
	}
	slices.Sort(d)
	at := func(q float64) time.Duration { return d[min(len(d)-1, int(q*float64(len(d))))] }
	return Percentiles{N: len(d), P50: at(0.50), P99: at(0.99), Max: d[len(d)-1]}
}

func (p Percentiles) row(w io.Writer, name, goal string) {
	fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", name, p.N, fmtDur(p.P50), fmtDur(p.P99), fmtDur(p.Max), goal)
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%d ns", d.Nanoseconds())
	case d < time.Millisecond:
		return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1e3)
	}
	return fmt.Sprintf("%.2f ms", float64(d.Nanoseconds())/1e6)
}

type benchMeeting struct {
	name    string
	turns   []meetingctx.Turn
	queries []string
}

func loadMeetings(dir string) ([]benchMeeting, error) {
	files, err := filepath.Glob(filepath.Join(dir, "val", "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no QMSum meetings under %s/val", dir)
	}
	slices.Sort(files)
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		return nil, err
	}
	var out []benchMeeting
	for _, f := range files {
		m, err := qmsum.Load(f)
		if err != nil {
			return nil, err
		}
		bm := benchMeeting{name: m.Name}
		for i, u := range qmsum.Utterances(m, "b") {
			bm.turns = append(bm.turns, meetingctx.Turn{Seq: i, SegmentID: u.SegmentID, SpeakerID: u.SpeakerID,
				SpeakerName: u.SpeakerName, Text: u.Text, StartMS: u.StartMS, EndMS: u.EndMS, Confidence: 1, Tokens: counter.Count(u.Text)})
		}
		for _, q := range m.SpecificQueries {
			bm.queries = append(bm.queries, q.Query)
		}
		out = append(out, bm)
	}
	return out, nil
}

func newLocalEngine(dim int) *meetingctx.Engine {
	return meetingctx.NewEngine(meetingctx.EngineDeps{
		Segmenter: segment.NewSegmenter(segment.SegmenterConfig{}), Summarizer: segment.NewSummarizer(),
		Embedder: segment.NewEmbedder(dim), Store: memTopics{},
	})
}

// Context measures the engine with the local provider and writes a
// markdown table.
func Context(ctx context.Context, o ContextOptions, w io.Writer) error {
	if o.Meetings <= 0 {
		o.Meetings = 50
	}
	if o.TopicsTotal <= 0 {
		o.TopicsTotal = 10_000
	}
	if o.TopicMeetings <= 0 {
		o.TopicMeetings = 200
	}
	if o.EmbedDim <= 0 {
		o.EmbedDim = 256
	}
	ms, err := loadMeetings(o.DataDir)
	if err != nil {
		return err
	}
	eng := newLocalEngine(o.EmbedDim)
	defer eng.Close(time.Minute)

	// 1. Per-utterance context update, and per-chunk L1 time, replaying
	// each meeting turn by turn.
	var apply, chunk []time.Duration
	for _, bm := range ms {
		m := meetingctx.New("bench", uuid.NewString(), meetingctx.Config{}, eng)
		for i, t := range bm.turns {
			start := time.Now()
			if _, err := m.Apply([]meetingctx.Turn{t}); err != nil {
				return err
			}
			apply = append(apply, time.Since(start))
			if (i+1)%meetingctx.DefaultChunkTurns == 0 {
				start = time.Now()
				m.WaitL1(ctx, time.Minute)
				chunk = append(chunk, time.Since(start))
			}
		}
	}

	// 2. Search within a meeting at up to 30 topics.
	var search []time.Duration
	topicsSeen := 0
	for _, bm := range ms {
		m := meetingctx.New("bench", uuid.NewString(), meetingctx.Config{}, eng)
		if _, err := m.Apply(bm.turns); err != nil {
			return err
		}
		m.Flush()
		m.WaitL1(ctx, time.Minute)
		topicsSeen = max(topicsSeen, len(m.Snapshot().Topics))
		for _, q := range bm.queries {
			start := time.Now()
			if _, err := m.Search(ctx, q, 5); err != nil {
				return err
			}
			search = append(search, time.Since(start))
		}
	}

	// 2b. Search within one long meeting held at the topic cap: every val
	// meeting concatenated, so topics keep merging down to MaxTopics.
	long, err := longMeeting(ctx, eng, ms)
	if err != nil {
		return err
	}
	longTopics := len(long.Snapshot().Topics)
	var searchCap []time.Duration
	for _, bm := range ms {
		for _, q := range bm.queries {
			start := time.Now()
			if _, err := long.Search(ctx, q, 5); err != nil {
				return err
			}
			searchCap = append(searchCap, time.Since(start))
		}
	}

	// 3. Heap per cached meeting after 500 turns.
	heap, err := heapPerMeeting(ctx, eng, ms, o.Meetings)
	if err != nil {
		return err
	}

	fmt.Fprintf(w, "context engine, local provider, %d QMSum val meetings (%d turns)\n\n", len(ms), len(apply))
	fmt.Fprintln(w, "| measure | n | p50 | p99 | max | goal |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	percentiles(apply).row(w, "context update per utterance (Apply)", "p99 < 2 ms")
	percentiles(chunk).row(w, "L1 chunk of 25 turns (segment, summarize, embed, merge)", "")
	percentiles(search).row(w, fmt.Sprintf("topic search in one meeting (≤ %d topics)", topicsSeen), "p99 < 5 ms")
	percentiles(searchCap).row(w, fmt.Sprintf("topic search in one %d-turn meeting (%d topics)", len(apply), longTopics), "p99 < 5 ms")
	if o.Store != nil {
		vec, text, err := crossMeetingSearch(ctx, o, ms)
		if err != nil {
			return err
		}
		percentiles(vec).row(w, fmt.Sprintf("vector search over %d topics of %d meetings (%s)", o.TopicsTotal, o.TopicMeetings, o.Store.VectorMode()), "")
		percentiles(text).row(w, fmt.Sprintf("full-text search over %d topics", o.TopicsTotal), "")
	}
	fmt.Fprintf(w, "\nheap per cached meeting after 500 turns: %.0f KiB (goal <= 512 KiB; %d meetings)\n", heap/1024, o.Meetings)
	return nil
}

// longMeeting replays every meeting of ms, one after another with times
// shifted past the previous one, into a single context and waits for L1.
func longMeeting(ctx context.Context, eng *meetingctx.Engine, ms []benchMeeting) (*meetingctx.Manager, error) {
	m := meetingctx.New("bench", uuid.NewString(), meetingctx.Config{}, eng)
	var seq int
	var offset int64
	for _, bm := range ms {
		turns := make([]meetingctx.Turn, len(bm.turns))
		var end int64
		for i, t := range bm.turns {
			t.Seq = seq
			t.SegmentID = fmt.Sprintf("%s-%d", bm.name, i)
			t.StartMS += offset
			t.EndMS += offset
			end = max(end, t.EndMS)
			turns[i] = t
			seq++
		}
		if _, err := m.Apply(turns); err != nil {
			return nil, err
		}
		offset = end + 1000
	}
	m.Flush()
	m.WaitL1(ctx, 10*time.Minute)
	return m, nil
}

// heapPerMeeting builds n contexts of 500 turns each, with L1 done, and
// returns the live heap they add, per meeting.
func heapPerMeeting(ctx context.Context, eng *meetingctx.Engine, ms []benchMeeting, n int) (float64, error) {
	var long []benchMeeting
	for _, bm := range ms {
		if len(bm.turns) >= 500 {
			long = append(long, bm)
		}
	}
	if len(long) == 0 {
		return 0, fmt.Errorf("no meeting with 500 turns")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := make([]*meetingctx.Manager, n)
	for i := range kept {
		bm := long[i%len(long)]
		m := meetingctx.New("bench", uuid.NewString(), meetingctx.Config{}, eng)
		if _, err := m.Apply(bm.turns[:500]); err != nil {
			return 0, err
		}
		m.WaitL1(ctx, time.Minute)
		kept[i] = m
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n), nil
}

// crossMeetingSearch stores TopicsTotal topics over TopicMeetings meetings
// and times tenant-wide vector and full-text search with the meetings'
// queries.
func crossMeetingSearch(ctx context.Context, o ContextOptions, ms []benchMeeting) (vec, text []time.Duration, err error) {
	st := o.Store
	if _, err := st.EnableVectors(ctx, o.EmbedDim); err != nil {
		return nil, nil, err
	}
	tn, err := st.EnsureTenant(ctx, o.Tenant)
	if err != nil {
		return nil, nil, err
	}
	emb := segment.NewEmbedder(o.EmbedDim)
	per := o.TopicsTotal / o.TopicMeetings
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, 4)
	)
	for mi := range o.TopicMeetings {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := storeBenchTopics(ctx, st, emb, tn.ID, ms[mi%len(ms)], mi, per); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, nil, errs[0]
	}
	for i, bm := range ms {
		for _, q := range bm.queries {
			qv, err := emb.Embed(ctx, []string{q})
			if err != nil {
				continue
			}
			start := time.Now()
			if _, err := st.SearchTopics(ctx, tn.ID, "", qv[0], 5, 0.3); err != nil {
				return nil, nil, err
			}
			vec = append(vec, time.Since(start))
			start = time.Now()
			if _, err := st.SearchTopicsText(ctx, tn.ID, "", wordsOf(q), 5); err != nil {
				return nil, nil, err
			}
			text = append(text, time.Since(start))
		}
		if i >= 10 {
			break
		}
	}
	return vec, text, nil
}

// storeBenchTopics writes per topics cut from one QMSum meeting's turns.
func storeBenchTopics(ctx context.Context, st *store.Store, emb *segment.Embedder, tenantID string, bm benchMeeting, mi, per int) error {
	mt, err := st.CreateMeeting(ctx, tenantID, store.NewMeeting{Title: fmt.Sprintf("bench %s #%d", bm.name, mi)})
	if err != nil {
		return err
	}
	span := max(1, len(bm.turns)/per)
	rows := make([]store.TopicRow, 0, per)
	texts := make([]string, 0, per)
	for i := range per {
		lo := min(i*span, len(bm.turns)-1)
		hi := min(lo+span-1, len(bm.turns)-1)
		var words []string
		for _, t := range bm.turns[lo : hi+1] {
			words = textutil.Terms(words, t.Text)
		}
		kw := words[:min(5, len(words))]
		summary := []rune(bm.turns[lo].Text)
		rows = append(rows, store.TopicRow{ID: uuid.NewString(), Seq: i, Title: fmt.Sprint("topic ", i),
			Summary: string(summary[:min(120, len(summary))]), Keywords: kw, StartSeq: lo, EndSeq: hi})
		texts = append(texts, string(summary)+" "+fmt.Sprint(kw))
	}
	vs, err := emb.Embed(ctx, texts)
	if err != nil {
		return err
	}
	for i := range rows {
		rows[i].Embedding = vs[i]
	}
	return st.ReplaceTopics(ctx, tenantID, mt.ID, rows)
}

func wordsOf(q string) []string { return textutil.Terms(nil, q) }
