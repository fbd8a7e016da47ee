package prdoc

import (
	"context"
	"fmt"
	"slices"

	"github.com/mithub/mithub/pkg/tokens"
)

// ExtractStream builds the same document as Extract on the same turns,
// reading them three times from in.Turns as Local.ExtractStream does. The
// parts are packed while the turns go by and mapped at most
// Concurrency at a time; their answers are reduced in meeting order as
// they come, so what it holds is the parts in flight, the agenda and the
// capped item lists.
func (x *LLM) ExtractStream(ctx context.Context, in StreamInput) (Document, error) {
	room := tokens.NewBudget(x.cfg.Window, x.cfg.MaxTokens).Available() - x.counter.Count(mapSystem) - 64
	if room <= 0 {
		return Document{}, fmt.Errorf("window %d, reserved %d: %w", x.cfg.Window, x.cfg.MaxTokens, ErrBudget)
	}
	sc, err := scan(ctx, in.Turns)
	if err != nil {
		return Document{}, err
	}
	var itemTok []int
	ag, err := streamAgenda(ctx, in, sc, x.seg, func(it AgendaItem, span []Turn) {
		n := 0
		for _, t := range span {
			if t.Seq >= it.StartSeq && t.Seq <= it.EndSeq {
				n += x.counter.Count(x.line(t)) + 1
			}
		}
		itemTok = append(itemTok, n)
	})
	if err != nil {
		return Document{}, err
	}
	agenda := ag.items
	spans := slices.Clone(agenda) // read by the map steps while keywords are added
	mctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := &mapper{x: x, ctx: mctx, cancel: cancel, in: Input{Date: in.Date}, agenda: spans, red: newReducer(sc.speakers)}
	defer m.wait()

	var (
		cur  part
		used int
		ai   = -1
	)
	flush := func() {
		if len(cur.lines) > 0 {
			m.launch(cur)
		}
		cur, used = part{}, 0
	}
	startItem := func(k int) {
		if used > 0 && len(cur.topics) > 0 && used+itemTok[k] > room {
			flush()
		}
		cur.topics = append(cur.topics, spans[k])
	}
	lessons := newLessonSink(meetingLabel(Input{MeetingID: in.MeetingID, MeetingTitle: in.MeetingTitle, Date: in.Date}))
	err = ag.keyTermPass(ctx, in.Turns, func(t Turn) {
		lessons.turn(t)
		if len(spans) == 0 || m.err != nil {
			return
		}
		if ai < 0 {
			ai = 0
			startItem(0)
		}
		for t.Seq > spans[ai].EndSeq {
			if ai+1 == len(spans) {
				return // after the last item: no part takes it
			}
			ai++
			startItem(ai)
		}
		if t.Seq < spans[ai].StartSeq {
			return
		}
		line := x.line(t)
		n := x.counter.Count(line) + 1
		if used+n > room && len(cur.lines) > 0 {
			flush()
			cur.topics = []AgendaItem{spans[ai]}
		}
		cur.lines = append(cur.lines, line)
		cur.turns = append(cur.turns, t)
		used += n
	})
	if err != nil {
		return Document{}, err
	}
	for k := ai + 1; k < len(spans) && m.err == nil; k++ {
		startItem(k)
	}
	flush()
	m.wait()
	if m.err != nil {
		return Document{}, m.err
	}
	return assemble(streamedInput(in, lessons.lines), agenda, m.red.sink.items(), ProviderOpenAI), nil
}

// mapper runs map steps at most Concurrency at a time and reduces their
// answers in the order the parts were made.
type mapper struct {
	x      *LLM
	ctx    context.Context
	cancel context.CancelFunc
	in     Input
	agenda []AgendaItem
	red    *reducer
	queue  []*mapped
	err    error
}

type mapped struct {
	done chan struct{}
	res  items
	err  error
}

func (m *mapper) launch(p part) {
	for len(m.queue) >= m.x.cfg.Concurrency {
		m.next()
	}
	if m.err != nil {
		return
	}
	r := &mapped{done: make(chan struct{})}
	m.queue = append(m.queue, r)
	go func() {
		defer close(r.done)
		r.res, r.err = m.x.mapPart(m.ctx, m.in, m.agenda, p)
	}()
}

// next waits for the oldest map step and reduces its answer; the first
// error cancels the others.
func (m *mapper) next() {
	r := m.queue[0]
	m.queue = m.queue[1:]
	<-r.done
	switch {
	case m.err != nil:
	case r.err != nil:
		m.err = r.err
		m.cancel()
	default:
		m.red.add(r.res)
	}
}

func (m *mapper) wait() {
	for len(m.queue) > 0 {
		m.next()
	}
}
