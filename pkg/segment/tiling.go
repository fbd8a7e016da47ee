package segment

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// This file keeps the unsupervised TextTiling segmenter that the PR agenda
// (pkg/prdoc) uses to split long agenda items; the meeting's live topics
// use Segmenter and its learned boundary model.

// TilingSegmenter splits chunks of turns into topics, TextTiling-style: it
// compares the content words before and after every gap between turns,
// scores how deep the similarity dips there, adds the evidence of cue
// phrases and long opening turns (see TilingConfig), and opens a topic
// where the score is high enough and the topics on both sides last long
// enough. Backchannel turns ("Yeah .", "네") have no features and are
// skipped. The previous topic's last turns are part of the window, so a
// chunk that goes on with the same subject continues it (ContinueTo)
// instead of opening a topic at every chunk border. Segments are titled
// and summarised by a Summarizer. It is safe for concurrent use.
type TilingSegmenter struct {
	cfg TilingConfig
	sum *Summarizer
	// analyse analyses a turn's text; parameter sweeps memoise it.
	analyse func(text string) analysis
}

var _ meetingctx.Segmenter = (*TilingSegmenter)(nil)

// NewTilingSegmenter returns a TilingSegmenter with cfg's zero fields set to their
// defaults.
func NewTilingSegmenter(cfg TilingConfig) *TilingSegmenter {
	return &TilingSegmenter{cfg: cfg.withDefaults(), sum: NewSummarizer(), analyse: analyse}
}

// Config returns the effective configuration.
func (s *TilingSegmenter) Config() TilingConfig { return s.cfg }

// Segment finds the topic boundaries of a chunk. With a previous topic,
// the turns before the first boundary continue it (ContinueTo; the whole
// chunk when there is no boundary); without one, or when the first
// boundary is the chunk's first turn, ContinueTo is -1. Every remaining
// turn is in exactly one segment.
func (s *TilingSegmenter) Segment(ctx context.Context, in meetingctx.SegmentInput) (meetingctx.SegmentOutput, error) {
	out := meetingctx.SegmentOutput{ContinueTo: -1}
	if len(in.Turns) == 0 {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	w := s.newTilingWindow(in)
	return chunkOutput(ctx, s.sum, in.Previous != nil, w.turns, w.first, s.boundaries(w, in.Previous), w.docs)
}

// boundaries returns the window indices (inside the chunk) where new
// topics start, ascending.
func (s *TilingSegmenter) boundaries(w *tilingWindow, prev *meetingctx.Topic) []int {
	cfg := s.cfg
	gaps, right := gapScores(w.bags, w.nwords, w.content, cfg.BlockWords, cfg.Smoothing)
	if len(gaps) == 0 {
		return nil
	}
	for j := range gaps {
		i := gaps[j].after
		long := math.Min(1, float64(w.nwords[i])/float64(cfg.LongTurnWords))
		gaps[j].score = gaps[j].depth + cfg.CueWeight*w.an[i].cue + cfg.LengthWeight*long
	}
	cands := tilingCandidates(w, gaps, right, cutoff(gaps, cfg.CutoffC, cfg.MinScore), cfg.TailWords)
	// The topic open at the chunk's start began at time open.
	open := w.start[w.first]
	if prev != nil {
		open = w.topicStart(prev)
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

// tilingCandidates returns the gaps scoring above cut that may open a topic in
// this chunk, best first. A gap needs tailWords content words after it in
// the window. Gaps in the previous turns that the last chunk could not
// judge yet (within tailWords of its end) open the topic at the chunk's
// first turn, the earliest still possible.
func tilingCandidates(w *tilingWindow, gaps []tilingGap, right []int, cut float64, tailWords int) []tilingGap {
	deferred := w.first
	for n := 0; deferred > 0 && n < tailWords; {
		deferred--
		n += w.nwords[deferred]
	}
	var cands []tilingGap
	for j, g := range gaps {
		if g.after < deferred || right[j] < tailWords || g.score <= cut {
			continue
		}
		g.after = max(g.after, w.first)
		cands = append(cands, g)
	}
	slices.SortStableFunc(cands, func(a, b tilingGap) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.after - b.after
	})
	return cands
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TilingConfig tunes the TilingSegmenter. A zero field takes its default; the
// defaults were chosen by a parameter sweep on the QMSum training meetings
// (mean Pk with 25-turn chunks, see TestTuneSegmenter).
//
// Every gap between two content turns gets a boundary score
//
//	depth + CueWeight·cue + LengthWeight·min(1, words/LongTurnWords)
//
// where depth is the TextTiling depth of the lexical similarity between
// the blocks before and after the gap, cue the strength of topic-opening
// phrases at the start of the turn after it, and words that turn's content
// words. A gap is a boundary when its score exceeds both MinScore and
// mean − CutoffC·stdev of the scores in the window, and the topics on both
// sides last at least MinTopic.
type TilingConfig struct {
	// BlockWords is how many content words each block compared across a
	// gap holds, grown turn by turn; every content turn in a block weighs
	// the same (default 400).
	BlockWords int
	// Smoothing is the half-width of the moving average over the gap
	// similarities; negative means none (default 2).
	Smoothing int
	// CutoffC sets the relative cutoff mean − CutoffC·stdev over the
	// window's boundary scores (default -2: two standard deviations above
	// the mean).
	CutoffC float64
	// MinScore is the absolute cutoff of the boundary score (default 1.7).
	MinScore float64
	// CueWeight weighs cue phrases such as "let's move on", "next item",
	// "questions from", "다음 안건", "넘어가"; negative disables them
	// (default 2).
	CueWeight float64
	// LengthWeight weighs the length of the turn after a gap: topics tend
	// to open with a long turn, such as a presentation or a chair's
	// question; negative disables it (default 2).
	LengthWeight float64
	// LongTurnWords is the content-word count at which the length term is
	// full (default 120).
	LongTurnWords int
	// MinTopic is the shortest topic a boundary may close or open,
	// measured on the turns' times, including the previous topic's start;
	// turns without times count 400 ms per word (default 8m).
	MinTopic time.Duration
	// TailWords is how many content words a gap needs after it inside the
	// chunk to be judged. A gap in the chunk's last turns is left to the
	// next chunk, which sees those turns as previous turns and can open
	// the topic at its first turn (default 60).
	TailWords int
}

// Defaults of TilingConfig.
const (
	DefaultTilingBlockWords    = 400
	DefaultTilingSmoothing     = 2
	DefaultTilingCutoffC       = -2.0
	DefaultTilingMinScore      = 1.7
	DefaultTilingCueWeight     = 2.0
	DefaultTilingLengthWeight  = 2.0
	DefaultTilingLongTurnWords = 120
	DefaultTilingMinTopic      = 8 * time.Minute
	DefaultTilingTailWords     = 60
)

func (c TilingConfig) withDefaults() TilingConfig {
	if c.BlockWords <= 0 {
		c.BlockWords = DefaultTilingBlockWords
	}
	switch {
	case c.Smoothing < 0:
		c.Smoothing = 0
	case c.Smoothing == 0:
		c.Smoothing = DefaultTilingSmoothing
	}
	if c.CutoffC == 0 {
		c.CutoffC = DefaultTilingCutoffC
	}
	if c.MinScore <= 0 {
		c.MinScore = DefaultTilingMinScore
	}
	switch {
	case c.CueWeight < 0:
		c.CueWeight = 0
	case c.CueWeight == 0:
		c.CueWeight = DefaultTilingCueWeight
	}
	switch {
	case c.LengthWeight < 0:
		c.LengthWeight = 0
	case c.LengthWeight == 0:
		c.LengthWeight = DefaultTilingLengthWeight
	}
	if c.LongTurnWords <= 0 {
		c.LongTurnWords = DefaultTilingLongTurnWords
	}
	if c.MinTopic <= 0 {
		c.MinTopic = DefaultTilingMinTopic
	}
	if c.TailWords <= 0 {
		c.TailWords = DefaultTilingTailWords
	}
	return c
}

// tilingWindow is the previous topic's last turns followed by the chunk.
type tilingWindow struct {
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

func (s *TilingSegmenter) newTilingWindow(in meetingctx.SegmentInput) *tilingWindow {
	var prev []meetingctx.Turn
	first := in.Turns[0].Seq
	for _, t := range in.PreviousTurns {
		if t.Seq < first {
			prev = append(prev, t)
		}
	}
	w := &tilingWindow{turns: append(prev, in.Turns...), first: len(prev)}
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
func (w *tilingWindow) setTimes() {
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

// topicStart returns when a topic started, on the window's clock: its
// StartMS when the turns are timed, otherwise estimated from its turn
// count.
func (w *tilingWindow) topicStart(t *meetingctx.Topic) int64 {
	if w.timed && t.EndMS > 0 {
		return t.StartMS
	}
	return w.start[0] - int64(float64(w.turns[0].Seq-t.StartSeq)*w.msPerTurn)
}

// docs returns window turns [from, to) as analysed documents.
func (w *tilingWindow) docs(from, to int) []doc {
	out := make([]doc, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, doc{text: w.turns[i].Text, words: w.an[i].words, bag: w.an[i].bag})
	}
	return out
}

// tilingGap is a possible topic boundary between two consecutive content turns
// of the window: a new topic would start at content turn after.
type tilingGap struct {
	after int     // tilingWindow index of the content turn after the tilingGap
	sim   float64 // smoothed block similarity across the tilingGap
	depth float64 // TextTiling depth score
	score float64 // boundary score: depth plus cue and length evidence
}

// gapScores computes, for each gap between consecutive content turns
// (window indices in content), the cosine between the block of content
// turns before it and the block after it, each grown turn by turn until it
// holds blockWords content words; the series is smoothed by a moving
// average of half-width smooth and each gap gets its depth score. right
// is the number of content words in the block after the gap.
func gapScores(bags []bag, words []int, content []int, blockWords, smooth int) (gaps []tilingGap, right []int) {
	if len(content) < 2 {
		return nil, nil
	}
	vecs, nfeat := denseVecs(bags)
	norms := make([]float64, len(bags))
	for _, i := range content {
		norms[i] = bags[i].norm()
	}
	left, rightBlock := newBlock(nfeat), newBlock(nfeat)
	raw := make([]float64, len(content)-1)
	right = make([]int, len(raw))
	for j := range raw {
		lo, n := j, words[content[j]]
		for lo > 0 && n < blockWords {
			lo--
			n += words[content[lo]]
		}
		hi, m := j+1, words[content[j+1]]
		for hi+1 < len(content) && m < blockWords {
			hi++
			m += words[content[hi]]
		}
		right[j] = m
		left.fill(vecs, norms, content[lo:j+1])
		rightBlock.fill(vecs, norms, content[j+1:hi+1])
		raw[j] = left.cosine(rightBlock)
	}
	sims := movingAverage(raw, smooth)
	gaps = make([]tilingGap, len(sims))
	for j, s := range sims {
		gaps[j] = tilingGap{after: content[j+1], sim: s, depth: depth(sims, j)}

	}
	return gaps, right
}

// movingAverage smooths xs with a window of half-width h, shrinking the
// window at the ends.
func movingAverage(xs []float64, h int) []float64 {
	if h <= 0 {
		return slices.Clone(xs)
	}
	out := make([]float64, len(xs))
	for i := range xs {
		lo, hi := max(0, i-h), min(len(xs), i+h+1)
		s := 0.0
		for _, x := range xs[lo:hi] {
			s += x
		}
		out[i] = s / float64(hi-lo)
	}
	return out
}

// depth is Hearst's depth score of gap j: how far the similarity drops
// from the nearest peaks on either side, found by climbing while the
// similarity does not decrease.
func depth(sims []float64, j int) float64 {
	left := sims[j]
	for i := j - 1; i >= 0 && sims[i] >= left; i-- {
		left = sims[i]
	}
	right := sims[j]
	for i := j + 1; i < len(sims) && sims[i] >= right; i++ {
		right = sims[i]
	}
	return left + right - 2*sims[j]
}

// cutoff is the score a gap must exceed to be a boundary: mean − c·stdev
// of the gaps' scores, but never below floor.
func cutoff(gaps []tilingGap, c, floor float64) float64 {
	if len(gaps) == 0 {
		return floor
	}
	mean := 0.0
	for _, g := range gaps {
		mean += g.score
	}
	mean /= float64(len(gaps))
	variance := 0.0
	for _, g := range gaps {
		variance += (g.score - mean) * (g.score - mean)
	}
	sd := math.Sqrt(variance / float64(len(gaps)))
	return math.Max(floor, mean-c*sd)
}

// msPerWord estimates speaking time for turns without times (150 words
// per minute).
const msPerWord = 400
