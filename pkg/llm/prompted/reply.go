package prompted

import (
	"cmp"
	"slices"
	"sort"

	"github.com/mithub/mithub/pkg/llm/lenient"
	"github.com/mithub/mithub/pkg/meetingctx"
)

// replyTopic is one topic as the model wrote it; missing seqs stay nil.
type replyTopic struct {
	StartSeq *int     `json:"start_seq"`
	EndSeq   *int     `json:"end_seq"`
	Title    string   `json:"title"`
	Summary  string   `json:"summary"`
	Keywords []string `json:"keywords"`
}

type segmentReply struct {
	ContinueTo *int         `json:"continue_to"`
	Topics     []replyTopic `json:"topics"`
	// Segments is read when a model names the list so.
	Segments []replyTopic `json:"segments"`
}

// parseSegmentReply reads the model's answer: the object asked for, or a
// bare list of topics. Values of the wrong type that cannot be coerced are
// left out (lenient.TypeError is not fatal); the repair that follows
// copes with missing fields.
func parseSegmentReply(content string) (segmentReply, error) {
	raw, err := lenient.Extract(content)
	if err != nil {
		return segmentReply{}, err
	}
	var r segmentReply
	if raw[0] == '[' {
		err = lenient.Unmarshal(raw, &r.Topics)
	} else {
		err = lenient.Unmarshal(raw, &r)
	}
	if _, ok := err.(*lenient.TypeError); err != nil && !ok {
		return segmentReply{}, err
	}
	if len(r.Topics) == 0 {
		r.Topics = r.Segments
	}
	return r, nil
}

type span struct {
	start, end int
	hasEnd     bool
	topic      replyTopic
}

// repairSegments turns a reply into segments that cover the chunk after
// ContinueTo exactly once, in order: seqs are clamped to the chunk, a
// missing end_seq runs to the next topic, overlaps are cut from the later
// topic and gaps get fallback segments. It reports whether the reply held
// anything usable (a valid continuation or at least one topic).
func repairSegments(in meetingctx.SegmentInput, r segmentReply) (meetingctx.SegmentOutput, bool) {
	first, last := in.Turns[0].Seq, in.Turns[len(in.Turns)-1].Seq
	out := meetingctx.SegmentOutput{ContinueTo: -1}
	if in.Previous != nil && r.ContinueTo != nil && *r.ContinueTo >= first {
		out.ContinueTo = min(*r.ContinueTo, last)
	}
	cursor := first
	if out.ContinueTo >= 0 {
		cursor = out.ContinueTo + 1
	}
	usable := out.ContinueTo >= 0

	spans := make([]span, 0, len(r.Topics))
	for _, t := range r.Topics {
		if t.StartSeq == nil {
			continue
		}
		sp := span{start: *t.StartSeq, topic: t}
		if t.EndSeq != nil {
			sp.end, sp.hasEnd = *t.EndSeq, true
		}
		spans = append(spans, sp)
	}
	slices.SortStableFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	for i := range spans {
		if !spans[i].hasEnd {
			spans[i].end = last
			if i+1 < len(spans) {
				spans[i].end = spans[i+1].start - 1
			}
		}
	}

	for _, sp := range spans {
		start, end := max(sp.start, cursor), min(sp.end, last)
		if start > end {
			continue
		}
		if start > cursor {
			out.Segments = append(out.Segments, fallbackSegment(in.Turns, cursor, start-1))
		}
		out.Segments = append(out.Segments, modelSegment(in.Turns, start, end, sp.topic))
		usable = true
		cursor = end + 1
	}
	if cursor <= last {
		out.Segments = append(out.Segments, fallbackSegment(in.Turns, cursor, last))
	}
	return out, usable
}

// modelSegment is a segment from the model's topic, with its text cleaned
// and fallbacks for an empty title or summary.
func modelSegment(turns []meetingctx.Turn, start, end int, t replyTopic) meetingctx.Segment {
	seg := meetingctx.Segment{
		StartSeq: start,
		EndSeq:   end,
		Title:    cleanTitle(t.Title),
		Summary:  cleanSummary(t.Summary),
		Keywords: cleanKeywords(t.Keywords),
	}
	if seg.Title == "" {
		seg.Title = fallbackTitle(start, end)
	}
	if seg.Summary == "" {
		seg.Summary = fallbackSummary(turnsIn(turns, start, end))
	}
	return seg
}

// fallbackSegment covers turns the model did not place.
func fallbackSegment(turns []meetingctx.Turn, start, end int) meetingctx.Segment {
	return meetingctx.Segment{
		StartSeq: start,
		EndSeq:   end,
		Title:    fallbackTitle(start, end),
		Summary:  fallbackSummary(turnsIn(turns, start, end)),
	}
}

// fallbackOutput covers the whole chunk with one fallback segment.
func fallbackOutput(turns []meetingctx.Turn) meetingctx.SegmentOutput {
	first, last := turns[0].Seq, turns[len(turns)-1].Seq
	return meetingctx.SegmentOutput{
		ContinueTo: -1,
		Segments:   []meetingctx.Segment{fallbackSegment(turns, first, last)},
	}
}

// turnsIn returns the turns with start <= seq <= end of turns sorted by
// seq.
func turnsIn(turns []meetingctx.Turn, start, end int) []meetingctx.Turn {
	i := sort.Search(len(turns), func(i int) bool { return turns[i].Seq >= start })
	j := sort.Search(len(turns), func(i int) bool { return turns[i].Seq > end })
	if i >= j {
		return nil
	}
	return turns[i:j]
}
