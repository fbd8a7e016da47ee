package prdoc

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// Source walks a meeting's turns in seq order, calling fn with each; an
// error from fn stops the walk and is returned. A Source can be walked
// more than once (ExtractStream reads the meeting three times), and each
// walk yields the same turns.
type Source func(ctx context.Context, fn func(Turn) error) error

// TurnsSource walks turns held in memory.
func TurnsSource(turns []Turn) Source {
	return func(ctx context.Context, fn func(Turn) error) error {
		for _, t := range turns {
			if err := fn(t); err != nil {
				return err
			}
		}
		return nil
	}
}

// StreamInput is an Input whose turns are read from a Source instead of
// held in memory.
type StreamInput struct {
	MeetingID    string
	MeetingTitle string
	Date         time.Time
	Topics       []Topic
	Turns        Source
}

// StreamExtractor builds a Document from a meeting it reads as a stream,
// keeping bounded state whatever the number of turns.
type StreamExtractor interface {
	ExtractStream(ctx context.Context, in StreamInput) (Document, error)
}

var (
	_ StreamExtractor = (*Local)(nil)
	_ StreamExtractor = (*LLM)(nil)
)

// Bounds of the streamed path.
const (
	// RefineWindowTurns is the most turns of one agenda item the streamed
	// path holds to refine it: a longer item is refined a window at a
	// time, so its sub-items may differ from the in-memory path's.
	RefineWindowTurns = 5000
)

// ExtractStream builds the same document as Extract on the same turns,
// reading them three times from in.Turns: a scan for the speakers and the
// seq range, the agenda (holding one agenda item's turns at a time, at
// most RefineWindowTurns), and the items with each agenda item's key
// terms (holding a few turns of lookahead). What it keeps besides is the
// agenda, the vocabulary's item counts and the capped item lists.
func (l *Local) ExtractStream(ctx context.Context, in StreamInput) (Document, error) {
	sc, err := scan(ctx, in.Turns)
	if err != nil {
		return Document{}, err
	}
	ag, err := streamAgenda(ctx, in, sc, l.seg, nil)
	if err != nil {
		return Document{}, err
	}
	sink := l.newItemSink(sc.speakers)
	sink.turns = sc.n
	lessons := newLessonSink(meetingLabel(Input{MeetingID: in.MeetingID, MeetingTitle: in.MeetingTitle, Date: in.Date}))
	var win []Turn
	drain := func(all bool) {
		for len(win) > 0 && (all || lookaheadDone(win)) {
			sink.turn(win, 0, ag.items, in.Date)
			win = win[1:]
		}
	}
	err = ag.keyTermPass(ctx, in.Turns, func(t Turn) {
		lessons.turn(t)
		win = append(win, t)
		drain(false)
	})
	if err != nil {
		return Document{}, err
	}
	drain(true)
	return assemble(streamedInput(in, lessons.lines), ag.items, sink.items(), ProviderLocal), nil
}

func streamedInput(in StreamInput, lessons []string) Input {
	return Input{MeetingID: in.MeetingID, MeetingTitle: in.MeetingTitle, Date: in.Date, Topics: in.Topics, lessons: lessons}
}

// lookaheadDone reports whether win holds enough turns after win[0] for
// the cue rules: the next lookTurns.
func lookaheadDone(win []Turn) bool {
	return len(win) > lookTurns
}

// scanned is what the first read of the turns finds.
type scanned struct {
	n           int
	first, last int
	speakers    []string
}

// scan reads the turns once for their seq range and speakers (in the
// order speakerNames gives), and checks that they come in seq order.
func scan(ctx context.Context, src Source) (scanned, error) {
	var (
		sc   scanned
		seen = map[string]bool{}
	)
	err := src(ctx, func(t Turn) error {
		if sc.n > 0 && t.Seq <= sc.last {
			return fmt.Errorf("turn seq %d after seq %d: turns must come in increasing seq order", t.Seq, sc.last)
		}
		if sc.n == 0 {
			sc.first = t.Seq
		}
		sc.n++
		sc.last = t.Seq
		if t.Speaker != "" && !seen[t.Speaker] {
			seen[t.Speaker] = true
			sc.speakers = append(sc.speakers, t.Speaker)
		}
		return ctx.Err()
	})
	if err != nil {
		return scanned{}, err
	}
	slices.SortStableFunc(sc.speakers, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return sc, nil
}

// streamedAgenda is the agenda built from a stream, without its key terms
// yet, and the number of agenda items each term occurs in.
type streamedAgenda struct {
	items  []AgendaItem
	df     map[string]int
	titles headings
}

// streamAgenda builds the agenda as Agenda does, reading the turns once.
// The topic items are known from the seq range; the turns after the last
// topic are segmented 25 at a time; every item is refined once no later
// chunk can extend it, from the turns held for it. onItem, when not nil,
// is called with every final item and its turns.
func streamAgenda(ctx context.Context, in StreamInput, sc scanned, seg meetingctx.Segmenter, onItem func(AgendaItem, []Turn)) (*streamedAgenda, error) {
	ag := &streamedAgenda{df: map[string]int{}, titles: headings{}}
	if sc.n == 0 {
		return ag, nil
	}
	b := &agendaBuilder{ctx: ctx, seg: seg, covered: sc.first - 1, emit: func(it AgendaItem, span []Turn) {
		tf := map[string]int{}
		for _, t := range span {
			if t.Seq >= it.StartSeq && t.Seq <= it.EndSeq {
				countTerms(tf, t)
			}
		}
		for w := range tf {
			if _, ok := ag.df[w]; !ok {
				w = strings.Clone(w) // not the turn text it is a piece of
			}
			ag.df[w]++
		}
		retitle(&it, span, noveltyIDF(ag.df, len(ag.items)+1), defaultHeadingWords, ag.titles)
		if onItem != nil {
			onItem(it, span)
		}
		ag.items = append(ag.items, it)
	}}
	for _, t := range in.Topics {
		if t.StartSeq > sc.last || t.EndSeq <= b.covered {
			continue
		}
		it := AgendaItem{
			Title: t.Title, Summary: t.Summary, Keywords: append([]string(nil), t.Keywords...),
			StartSeq: max(t.StartSeq, b.covered+1), EndSeq: min(t.EndSeq, sc.last), TopicID: t.ID,
		}
		b.items = append(b.items, it)
		b.covered = it.EndSeq
	}
	if err := in.Turns(ctx, b.turn); err != nil {
		return nil, err
	}
	if err := b.finish(); err != nil {
		return nil, err
	}
	return ag, nil
}

// agendaBuilder holds the agenda items not refined yet and the turns they
// (and the tail chunk being filled) need.
type agendaBuilder struct {
	ctx     context.Context
	seg     meetingctx.Segmenter
	covered int
	items   []AgendaItem // unrefined items, in order
	buf     []Turn       // turns from the first unrefined item on
	chunk   int          // tail turns at the end of buf not segmented yet
	emit    func(AgendaItem, []Turn)
}

func (b *agendaBuilder) turn(t Turn) error {
	if err := b.ctx.Err(); err != nil {
		return err
	}
	if t.Seq <= b.covered {
		// Topic items the turn is past are final, except the last item,
		// which the first tail chunk may extend.
		for len(b.items) > 1 && b.items[0].EndSeq < t.Seq {
			if err := b.refineFirst(); err != nil {
				return err
			}
		}
		b.buf = append(b.buf, t)
		return b.bound()
	}
	b.buf = append(b.buf, t)
	b.chunk++
	if b.chunk == tailChunk {
		if err := b.segmentChunk(); err != nil {
			return err
		}
	}
	return b.bound()
}

// segmentChunk puts the pending tail chunk on the agenda; every item but
// the last is final afterwards.
func (b *agendaBuilder) segmentChunk() error {
	chunk := b.buf[len(b.buf)-b.chunk:]
	b.chunk = 0
	if err := extendAgenda(b.ctx, b.seg, &b.items, b.buf, chunk); err != nil {
		return err
	}
	for len(b.items) > 1 {
		if err := b.refineFirst(); err != nil {
			return err
		}
	}
	return nil
}

func (b *agendaBuilder) finish() error {
	if b.chunk > 0 {
		if err := b.segmentChunk(); err != nil {
			return err
		}
	}
	for len(b.items) > 0 {
		if err := b.refineFirst(); err != nil {
			return err
		}
	}
	return nil
}

// refineFirst refines the first unrefined item, emits its parts and drops
// the turns no unrefined item needs any more.
func (b *agendaBuilder) refineFirst() error {
	it := b.items[0]
	b.items = b.items[1:]
	span := lastTurnsOf(b.buf, it.StartSeq, it.EndSeq, len(b.buf))
	parts, err := refineItem(b.ctx, it, span)
	if err != nil {
		return err
	}
	for _, p := range parts {
		b.emit(p, span)
	}
	keep := it.EndSeq + 1
	if len(b.items) > 0 {
		keep = b.items[0].StartSeq
		for _, x := range b.items[1:] {
			keep = min(keep, x.StartSeq)
		}
	}
	b.dropBefore(keep)
	return nil
}

// dropBefore drops the held turns with seq < seq.
func (b *agendaBuilder) dropBefore(seq int) {
	i := 0
	for i < len(b.buf)-b.chunk && b.buf[i].Seq < seq {
		i++
	}
	if i > 0 {
		b.buf = slices.Clone(b.buf[i:])
	}
}

// bound keeps the held turns of the first unrefined item within
// RefineWindowTurns: its first window is refined and emitted, and the
// item goes on after it.
func (b *agendaBuilder) bound() error {
	for len(b.items) > 0 && len(b.buf) > RefineWindowTurns+tailChunk {
		it := b.items[0]
		span := lastTurnsOf(b.buf, it.StartSeq, it.EndSeq, len(b.buf))
		if len(span) <= RefineWindowTurns {
			return nil
		}
		head := it
		head.EndSeq = span[RefineWindowTurns-1].Seq
		parts, err := refineItem(b.ctx, head, span[:RefineWindowTurns])
		if err != nil {
			return err
		}
		for _, p := range parts {
			b.emit(p, span[:RefineWindowTurns])
		}
		b.items[0].StartSeq = span[RefineWindowTurns].Seq
		b.dropBefore(b.items[0].StartSeq)
	}
	return nil
}

// keyTermPass reads the turns once more, adds each item's key terms (the
// document frequencies are final now) and hands every turn to fn.
func (ag *streamedAgenda) keyTermPass(ctx context.Context, src Source, fn func(Turn)) error {
	order := make([]int, len(ag.items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ag.items[a].StartSeq, ag.items[b].StartSeq) })
	var (
		lo, hi int
		tf     = map[int]map[string]int{}
	)
	done := func(k int) {
		if m, ok := tf[k]; ok {
			rankKeyTerms(&ag.items[k], m, ag.df, len(ag.items), KeyTerms, defaultHeadingWords)
			delete(tf, k)
		} else {
			rankKeyTerms(&ag.items[k], nil, ag.df, len(ag.items), KeyTerms, defaultHeadingWords)
		}
	}
	err := src(ctx, func(t Turn) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		for hi < len(order) && ag.items[order[hi]].StartSeq <= t.Seq {
			hi++
		}
		for lo < hi && ag.items[order[lo]].EndSeq < t.Seq {
			done(order[lo])
			lo++
		}
		for _, k := range order[lo:hi] {
			if t.Seq > ag.items[k].EndSeq {
				continue
			}
			m := tf[k]
			if m == nil {
				m = map[string]int{}
				tf[k] = m
			}
			countTerms(m, t)
		}
		fn(t)
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range order[lo:] {
		done(k)
	}
	return nil
}
