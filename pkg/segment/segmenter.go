package segment

import (
	"context"
	"errors"
	"fmt"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// Segmenter splits turns into topics with a learned boundary model (see
// BoundaryModel): every gap between two turns gets the probability that a
// topic starts after it, from the lexical cohesion of the turns around it
// at several window sizes, cue phrases in English and Korean, speakers,
// turn lengths, questions and new vocabulary; the most probable gaps above
// a threshold that keep every topic at least MinTurns turns long open
// topics.
//
// Live, Segment sees one chunk at a time with the previous topic's last
// turns; a chunk that goes on with the same subject continues the topic
// (ContinueTo). SegmentMeeting segments a whole meeting at once, the
// end-of-meeting pass. Segments are titled and summarised by a Summarizer.
// It is safe for concurrent use.
type Segmenter struct {
	cfg SegmenterConfig
	sum *Summarizer
	// analyse analyses a turn's text; parameter sweeps memoise it.
	analyse func(text string) analysis
	err     error // the shipped model did not load
}

var _ meetingctx.Segmenter = (*Segmenter)(nil)

// NewSegmenter returns a Segmenter with cfg's zero fields set to their
// defaults. When cfg has no Model and the shipped model cannot be read
// (a broken build), every call returns that error.
func NewSegmenter(cfg SegmenterConfig) *Segmenter {
	c, err := cfg.withDefaults()
	return &Segmenter{cfg: c, sum: NewSummarizer(), analyse: analyse, err: err}
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
	if s.err != nil {
		return out, s.err
	}
	if len(in.Turns) == 0 {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	var prev []meetingctx.Turn
	if in.Previous != nil {
		for _, t := range in.PreviousTurns {
			if t.Seq < in.Turns[0].Seq && t.Seq >= in.Previous.StartSeq {
				prev = append(prev, t)
			}
		}
	}
	w := s.newWindow(prev, in.Turns)
	return chunkOutput(ctx, s.sum, in.Previous != nil, w.turns, w.first, s.boundaries(w, in.Previous), w.docs)
}

// chunkOutput makes a chunk's output from the window indices where its
// topics start (ascending; the chunk's first turn is turns[first]): with
// a previous topic (continuing), the turns before the first start
// continue it; the rest are segments from each start to the next,
// summarised by sum against the whole window (docs gives a range's
// documents).
func chunkOutput(ctx context.Context, sum *Summarizer, continuing bool, turns []meetingctx.Turn, first int, starts []int, docs func(from, to int) []doc) (meetingctx.SegmentOutput, error) {
	out := meetingctx.SegmentOutput{ContinueTo: -1}
	switch {
	case continuing && len(starts) == 0:
		out.ContinueTo = turns[len(turns)-1].Seq
		return out, nil
	case continuing && starts[0] > first:
		out.ContinueTo = turns[starts[0]].Seq - 1
	case len(starts) == 0 || starts[0] > first:
		starts = append([]int{first}, starts...)
	}
	segs, err := segments(ctx, sum, turns, starts, docs)
	if err != nil {
		return meetingctx.SegmentOutput{ContinueTo: -1}, err
	}
	out.Segments = segs
	return out, nil
}

// SegmentMeeting segments a whole meeting's turns (contiguous in seq,
// ascending) in one pass: the end-of-meeting pass, which sees every turn
// before and after each gap. The segments cover every turn in order.
func (s *Segmenter) SegmentMeeting(ctx context.Context, turns []meetingctx.Turn) ([]meetingctx.Segment, error) {
	if s.err != nil {
		return nil, s.err
	}
	if len(turns) == 0 {
		return nil, nil
	}
	for i := 1; i < len(turns); i++ {
		if turns[i].Seq != turns[i-1].Seq+1 {
			return nil, fmt.Errorf("segment meeting: turn %d has seq %d after %d, want contiguous seqs", i, turns[i].Seq, turns[i-1].Seq)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := s.newWindow(nil, turns)
	n := len(turns)
	infos := w.infos()
	probs := s.cfg.Model.probs(gapFeatures(infos))
	at := wordStarts(infos)
	starts := append([]int{0}, decode(probs, 1, n, 0, n, s.cfg.Threshold, s.cfg.MinWords, meetingLimit(at[n], s.cfg.TopicWords), at)...)
	return segments(ctx, s.sum, w.turns, starts, w.docs)
}

// segments summarises the window's turns from each start to the next,
// against the whole window.
func segments(ctx context.Context, sum *Summarizer, turns []meetingctx.Turn, starts []int, docs func(from, to int) []doc) ([]meetingctx.Segment, error) {
	out := make([]meetingctx.Segment, 0, len(starts))
	all := docs(0, len(turns))
	for i, start := range starts {
		end := len(turns)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		seg, err := summarizeSegment(ctx, sum, turns[start:end], docs(start, end), all)
		if err != nil {
			return nil, err
		}
		out = append(out, seg)
	}
	return out, nil
}

// summarizeSegment makes turns (whose documents are part, against the
// window's all) one segment, titled and summarised by sum when it is not
// nil.
func summarizeSegment(ctx context.Context, sum *Summarizer, turns []meetingctx.Turn, part, all []doc) (meetingctx.Segment, error) {
	seg := meetingctx.Segment{StartSeq: turns[0].Seq, EndSeq: turns[len(turns)-1].Seq}
	if sum == nil {
		return seg, nil
	}
	res, err := sum.summarize(ctx, part, all, nil)
	switch {
	case err == nil:
		seg.Title, seg.Summary, seg.Keywords = res.Title, res.Summary, res.Keywords
	case errors.Is(err, ErrNoContent):
		// Fillers only: the engine's fallback title applies.
	default:
		return seg, err
	}
	return seg, nil
}

// boundaries returns the window indices (at or after the chunk's first
// turn) where new topics start, ascending. Gaps in the chunk's last
// TailTurns turns wait for the next chunk; the gaps the previous chunk
// left waiting open a topic at this chunk's first turn at the earliest.
func (s *Segmenter) boundaries(w *window, prev *meetingctx.Topic) []int {
	cfg := s.cfg
	n := len(w.turns)
	probs := cfg.Model.probs(gapFeatures(w.infos()))
	// lo is where the topic open before the chunk started, on the
	// window's indices (negative when before the window).
	lo, from := w.first, w.first+1
	if prev != nil {
		lo = prev.StartSeq - w.turns[0].Seq
		from = max(1, w.first-cfg.TailTurns, lo+1)
	}
	// A later start can only come after the window: no bound on this side.
	hi := n + cfg.MinTurns
	var starts []int
	for _, b := range decode(probs, from, n-cfg.TailTurns, lo, hi, cfg.Threshold, cfg.MinTurns, -1, nil) {
		b = max(b, w.first)
		if len(starts) == 0 || starts[len(starts)-1] != b {
			starts = append(starts, b)
		}
	}
	return starts
}
