package local

import (
	"context"
	"slices"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// SegmenterConfig tunes the Segmenter. Zero values take the defaults,
// which were tuned on the QMSum training meetings (mean Pk, 25-turn
// chunks).
type SegmenterConfig struct {
	// BlockWords is how many content words each block compared across a
	// gap holds, grown turn by turn (default 120).
	BlockWords int
	// Smoothing is the half-width of the moving average over gap
	// similarities (default 1).
	Smoothing int
	// DepthC sets the relative cutoff mean − DepthC·stdev of the depth
	// scores in the chunk and the previous turns (default -1.0, i.e. one
	// standard deviation above the mean).
	DepthC float64
	// MinDepth is the absolute floor of the cutoff (default 0.30).
	MinDepth float64
	// MinTopic is the shortest topic a boundary may close or open,
	// measured on the turns' times; it also applies to the previous topic
	// (default 4m). Turns without times count 400 ms per word.
	MinTopic time.Duration
	// TailWords is how many content words a gap needs after it inside the
	// chunk to be judged; a boundary in the chunk's last turns is left to
	// the next chunk, which sees them as previous turns (default 60).
	TailWords int
	// TurnNorm weighs each turn by 1/norm^TurnNorm in a block: 0 sums raw
	// features, 1 gives every content turn equal weight (default 0.5).
	TurnNorm float64
	// CueWeight is added to a gap's depth score times the strength of the
	// cue phrases ("let's move on", "next item", "다음 안건") at the start
	// of the turn after it (default 0.3).
	CueWeight float64
	// Zero, when set, keeps zero values of DepthC and TurnNorm instead of
	// replacing them by the defaults.
	Zero bool
}

// Defaults of SegmenterConfig.
const (
	DefaultBlockWords = 120
	DefaultSmoothing  = 1
	DefaultDepthC     = -1.0
	DefaultMinDepth   = 0.30
	DefaultMinTopic   = 4 * time.Minute
	DefaultTailWords  = 60
	DefaultTurnNorm   = 0.5
	DefaultCueWeight  = 0.3
)

// msPerWord estimates speaking time for turns without times (150 words
// per minute).
const msPerWord = 400

func (c SegmenterConfig) withDefaults() SegmenterConfig {
	if c.BlockWords <= 0 {
		c.BlockWords = DefaultBlockWords
	}
	if c.Smoothing < 0 {
		c.Smoothing = 0
	} else if c.Smoothing == 0 && !c.Zero {
		c.Smoothing = DefaultSmoothing
	}
	if c.DepthC == 0 && !c.Zero {
		c.DepthC = DefaultDepthC
	}
	if c.MinDepth <= 0 && !c.Zero {
		c.MinDepth = DefaultMinDepth
	}
	if c.MinTopic <= 0 && !c.Zero {
		c.MinTopic = DefaultMinTopic
	}
	if c.TailWords <= 0 && !c.Zero {
		c.TailWords = DefaultTailWords
	}
	if c.TurnNorm == 0 && !c.Zero {
		c.TurnNorm = DefaultTurnNorm
	}
	if c.CueWeight == 0 && !c.Zero {
		c.CueWeight = DefaultCueWeight
	}
	return c
}

// Segmenter splits chunks of turns into topics by lexical cohesion
// (TextTiling): it compares the content words before and after every gap
// between turns, scores how deep the similarity dips there, and opens a
// topic where the dip is deep enough and the topics on both sides last
// long enough. Backchannel turns ("Yeah .", "네") have no features and are
// skipped when blocks are built. The previous topic's last turns are part
// of the window, so a chunk that goes on with the same subject continues
// it (ContinueTo) instead of opening a topic at every chunk border. It is
// safe for concurrent use.
type Segmenter struct {
	cfg SegmenterConfig
	sum *Summarizer
	// analyse analyses a turn's text; parameter sweeps memoise it.
	analyse func(text string) analysis
}

var _ meetingctx.Segmenter = (*Segmenter)(nil)

// NewSegmenter returns a Segmenter; segments are titled and summarised by
// a Summarizer.
func NewSegmenter(cfg SegmenterConfig) *Segmenter {
	return &Segmenter{cfg: cfg.withDefaults(), sum: NewSummarizer(), analyse: analyse}
}

// Config returns the effective configuration.
func (s *Segmenter) Config() SegmenterConfig { return s.cfg }

// Segment finds the topic boundaries of a chunk. With a previous topic,
// the turns before the first boundary continue it (ContinueTo); without
// one, or when the first boundary is the chunk's first turn, ContinueTo is
// -1. Every remaining turn is in exactly one segment.
func (s *Segmenter) Segment(ctx context.Context, in meetingctx.SegmentInput) (meetingctx.SegmentOutput, error) {
	out := meetingctx.SegmentOutput{ContinueTo: -1}
	if len(in.Turns) == 0 {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	w := s.newWindow(in)
	starts := s.boundaries(w, in.Previous)
	switch {
	case in.Previous != nil && len(starts) == 0:
		out.ContinueTo = in.Turns[len(in.Turns)-1].Seq
		return out, nil
	case in.Previous != nil && starts[0] > w.first:
		out.ContinueTo = w.turns[starts[0]].Seq - 1
	case len(starts) == 0 || starts[0] > w.first:
		starts = append([]int{w.first}, starts...)
	}
	for i, start := range starts {
		end := len(w.turns)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		seg, err := s.segment(ctx, w, start, end)
		if err != nil {
			return meetingctx.SegmentOutput{ContinueTo: -1}, err
		}
		out.Segments = append(out.Segments, seg)
	}
	return out, nil
}

// segment summarises window turns [start, end) as one segment.
func (s *Segmenter) segment(ctx context.Context, w *window, start, end int) (meetingctx.Segment, error) {
	turns := w.turns[start:end]
	seg := meetingctx.Segment{StartSeq: turns[0].Seq, EndSeq: turns[len(turns)-1].Seq}
	if s.sum == nil {
		return seg, nil
	}
	sum, err := s.sum.summarize(ctx, w.docs(start, end), w.docs(0, len(w.turns)), nil)
	switch {
	case err == nil:
		seg.Title, seg.Summary, seg.Keywords = sum.Title, sum.Summary, sum.Keywords
	case err == ErrNoContent:
		// Fillers only: the engine's fallback title applies.
	default:
		return seg, err
	}
	return seg, nil
}

// boundaries returns the window indices (inside the chunk) where new
// topics start, ascending.
func (s *Segmenter) boundaries(w *window, prev *meetingctx.Topic) []int {
	cfg := s.cfg
	gaps, right := gapScores(w.bags, w.nwords, w.content, cfg.BlockWords, cfg.Smoothing, cfg.TurnNorm)
	if len(gaps) == 0 {
		return nil
	}
	for j := range gaps {
		gaps[j].depth += cfg.CueWeight * w.an[gaps[j].after].cue
	}
	cut := cutoff(gaps, cfg.DepthC, cfg.MinDepth)
	var cands []gap
	for j, g := range gaps {
		if g.after > w.first && right[j] >= cfg.TailWords && g.depth > cut {
			cands = append(cands, g)
		}
	}
	slices.SortStableFunc(cands, func(a, b gap) int {
		switch {
		case a.depth > b.depth:
			return -1
		case a.depth < b.depth:
			return 1
		}
		return a.after - b.after
	})
	// The topic open at the chunk's start began at time open.
	open := w.start[w.first]
	if prev != nil {
		open = w.time(prev)
	}
	minTopic := cfg.MinTopic.Milliseconds()
	var starts []int
	for _, g := range cands {
		at := w.start[g.after]
		if at-open < minTopic {
			continue
		}
		if !slices.ContainsFunc(starts, func(b int) bool { return abs64(at-w.start[b]) < minTopic }) {
			starts = append(starts, g.after)
		}
	}
	slices.Sort(starts)
	return starts
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// analysis is what the segmenter knows about one turn.
type analysis struct {
	words  []word
	bag    bag     // empty for fillers
	nwords int     // content words
	cue    float64 // cue phrase strength at the turn's start
}

func analyse(text string) analysis {
	a := analysis{words: tokenize(text)}
	c := make(counter)
	countFeatures(c, a.words, false)
	a.bag = c.bag()
	for _, w := range a.words {
		if w.content() {
			a.nwords++
		}
	}
	a.cue = cueScore(a.words)
	return a
}

// window is the previous topic's last turns followed by the chunk.
type window struct {
	turns   []meetingctx.Turn
	first   int // index of the chunk's first turn
	an      []analysis
	bags    []bag
	nwords  []int
	content []int   // indices of the turns with content, ascending
	start   []int64 // start time per turn, ms (estimated without times)
	timed   bool    // the turns carry times
	// msPerTurn converts turn counts into time for an earlier turn
	// outside the window.
	msPerTurn float64
}

func (s *Segmenter) newWindow(in meetingctx.SegmentInput) *window {
	var prev []meetingctx.Turn
	first := in.Turns[0].Seq
	for _, t := range in.PreviousTurns {
		if t.Seq < first {
			prev = append(prev, t)
		}
	}
	w := &window{turns: append(prev, in.Turns...), first: len(prev)}
	n := len(w.turns)
	w.an, w.bags, w.nwords, w.start = make([]analysis, n), make([]bag, n), make([]int, n), make([]int64, n)
	for i, t := range w.turns {
		a := s.analyse(t.Text)
		w.an[i], w.bags[i], w.nwords[i] = a, a.bag, a.nwords
		if len(a.bag) > 0 {
			w.content = append(w.content, i)
		}
	}
	w.setTimes()
	return w
}

// setTimes takes the turns' start times when they have any, else
// estimates them from word counts.
func (w *window) setTimes() {
	for _, t := range w.turns {
		if t.EndMS > 0 {
			w.timed = true
			break
		}
	}
	var at int64
	for i, t := range w.turns {
		if w.timed {
			w.start[i] = t.StartMS
			continue
		}
		w.start[i] = at
		at += int64(max(len(w.an[i].words), 1)) * msPerWord
	}
	last := w.turns[len(w.turns)-1]
	end := at
	if w.timed {
		end = max(last.EndMS, last.StartMS)
	}
	w.msPerTurn = float64(end-w.start[0]) / float64(len(w.turns))
}

// time returns when a topic started, on the window's clock: its StartMS
// when the turns are timed, otherwise estimated from the turn count.
func (w *window) time(t *meetingctx.Topic) int64 {
	if w.timed && t.EndMS > 0 {
		return t.StartMS
	}
	return w.start[0] - int64(float64(w.turns[0].Seq-t.StartSeq)*w.msPerTurn)
}

// docs returns window turns [from, to) as analysed documents.
func (w *window) docs(from, to int) []doc {
	out := make([]doc, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, doc{text: w.turns[i].Text, words: w.an[i].words, bag: w.an[i].bag})
	}
	return out
}
