package local

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// Segmenter splits chunks of turns into topics, TextTiling-style: it
// compares the content words before and after every gap between turns,
// scores how deep the similarity dips there, adds the evidence of cue
// phrases and long opening turns (see SegmenterConfig), and opens a topic
// where the score is high enough and the topics on both sides last long
// enough. Backchannel turns ("Yeah .", "네") have no features and are
// skipped. The previous topic's last turns are part of the window, so a
// chunk that goes on with the same subject continues it (ContinueTo)
// instead of opening a topic at every chunk border. Segments are titled
// and summarised by a Summarizer. It is safe for concurrent use.
type Segmenter struct {
	cfg SegmenterConfig
	sum *Summarizer
	// analyse analyses a turn's text; parameter sweeps memoise it.
	analyse func(text string) analysis
}

var _ meetingctx.Segmenter = (*Segmenter)(nil)

// NewSegmenter returns a Segmenter with cfg's zero fields set to their
// defaults.
func NewSegmenter(cfg SegmenterConfig) *Segmenter {
	return &Segmenter{cfg: cfg.withDefaults(), sum: NewSummarizer(), analyse: analyse}
}

// Config returns the effective configuration.
func (s *Segmenter) Config() SegmenterConfig { return s.cfg }

// Segment finds the topic boundaries of a chunk. With a previous topic,
// the turns before the first boundary continue it (ContinueTo; the whole
// chunk when there is no boundary); without one, or when the first
// boundary is the chunk's first turn, ContinueTo is -1. Every remaining
// turn is in exactly one segment.
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

// segment summarises window turns [start, end) as one segment, against the
// whole window as background.
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
	case errors.Is(err, ErrNoContent):
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
	gaps, right := gapScores(w.bags, w.nwords, w.content, cfg.BlockWords, cfg.Smoothing)
	if len(gaps) == 0 {
		return nil
	}
	for j := range gaps {
		i := gaps[j].after
		long := math.Min(1, float64(w.nwords[i])/float64(cfg.LongTurnWords))
		gaps[j].score = gaps[j].depth + cfg.CueWeight*w.an[i].cue + cfg.LengthWeight*long
	}
	cands := candidates(w, gaps, right, cutoff(gaps, cfg.CutoffC, cfg.MinScore), cfg.TailWords)
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

// candidates returns the gaps scoring above cut that may open a topic in
// this chunk, best first. A gap needs tailWords content words after it in
// the window. Gaps in the previous turns that the last chunk could not
// judge yet (within tailWords of its end) open the topic at the chunk's
// first turn, the earliest still possible.
func candidates(w *window, gaps []gap, right []int, cut float64, tailWords int) []gap {
	deferred := w.first
	for n := 0; deferred > 0 && n < tailWords; {
		deferred--
		n += w.nwords[deferred]
	}
	var cands []gap
	for j, g := range gaps {
		if g.after < deferred || right[j] < tailWords || g.score <= cut {
			continue
		}
		g.after = max(g.after, w.first)
		cands = append(cands, g)
	}
	slices.SortStableFunc(cands, func(a, b gap) int {
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
