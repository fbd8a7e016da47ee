package meetingcache

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mithub/mithub/pkg/tracing"
)

// Topics are saved by the meeting's background runner, outside the
// request that stored their turns. To keep one trace from a posted
// segment to the save of its topic, ApplyInserted remembers the span of
// each traced request with the last seq it applied, and SaveTopics
// continues the first remembered span whose turns the save covers (and
// links the others). Only recording spans are remembered: with tracing
// off this holds nothing.
type traceLinks struct {
	mu      sync.Mutex
	pending map[string][]seqSpan // meeting id → spans in seq order
}

type seqSpan struct {
	seq int
	sc  trace.SpanContext
}

// Bounds of the remembered spans.
const (
	maxTracedMeetings   = 10_000
	maxSpansPerMeeting  = 64
	maxTopicSaveLinks   = 32
	topicSaveSpanName   = "save topics"
	topicSaveMeetingKey = "mithub.meeting_id"
)

var links = &traceLinks{pending: map[string][]seqSpan{}}

// remember notes that ctx's span applied the meeting's turns up to seq.
func (l *traceLinks) remember(ctx context.Context, meetingID string, seq int) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.pending[meetingID]; !ok && len(l.pending) >= maxTracedMeetings {
		return
	}
	list := append(l.pending[meetingID], seqSpan{seq: seq, sc: span.SpanContext()})
	if len(list) > maxSpansPerMeeting {
		list = list[len(list)-maxSpansPerMeeting:]
	}
	l.pending[meetingID] = list
}

// take removes and returns the spans whose turns end at or before
// l1Cursor.
func (l *traceLinks) take(meetingID string, l1Cursor int) []trace.SpanContext {
	l.mu.Lock()
	defer l.mu.Unlock()
	list := l.pending[meetingID]
	n := 0
	for n < len(list) && list[n].seq <= l1Cursor {
		n++
	}
	if n == 0 {
		return nil
	}
	out := make([]trace.SpanContext, n)
	for i := range n {
		out[i] = list[i].sc
	}
	if rest := list[n:]; len(rest) > 0 {
		l.pending[meetingID] = append([]seqSpan(nil), rest...)
	} else {
		delete(l.pending, meetingID)
	}
	return out
}

// saveSpan starts the span of a topic save: a child of the first traced
// request it covers, linked to the others.
func saveSpan(ctx context.Context, meetingID string, l1Cursor, topics int) (context.Context, trace.Span) {
	scs := links.take(meetingID, l1Cursor)
	opts := []trace.SpanStartOption{trace.WithAttributes(attribute.String(topicSaveMeetingKey, meetingID),
		attribute.Int("mithub.l1_cursor", l1Cursor), attribute.Int("mithub.topics", topics))}
	if len(scs) > 0 {
		ctx = trace.ContextWithRemoteSpanContext(ctx, scs[0])
		for _, sc := range scs[1:min(len(scs), maxTopicSaveLinks)] {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
		}
	}
	return tracing.Start(ctx, topicSaveSpanName, opts...)
}
