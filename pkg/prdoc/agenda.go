package prdoc

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/textutil"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
)

// tailChunk is how many uncovered turns the segmenter sees at once, as
// the context engine's L1 chunks do.
const tailChunk = 25

// Agenda returns the meeting's agenda: one item per topic, in order, cut
// to the turns of the input, followed by items for the turns after the
// last topic, segmented and summarised with seg (the local provider when
// nil). So every turn of the input is on the agenda.
func Agenda(ctx context.Context, in Input, seg meetingctx.Segmenter) ([]AgendaItem, error) {
	return AgendaWith(ctx, in, seg, AgendaOptions{})
}

// AgendaOptions change how an agenda is built; the zero value is what
// Agenda and the extractors use.
type AgendaOptions struct {
	// PlainHeadings titles items and ranks their key terms without the
	// learned heading words (HeadingWords), every word alike: the
	// baseline an evaluation measures them against.
	PlainHeadings bool
}

// AgendaWith is Agenda with options.
func AgendaWith(ctx context.Context, in Input, seg meetingctx.Segmenter, o AgendaOptions) ([]AgendaItem, error) {
	words := defaultHeadingWords
	if o.PlainHeadings {
		words = nil
	}
	if len(in.Turns) == 0 {
		return nil, nil
	}
	first, last := in.Turns[0].Seq, in.Turns[len(in.Turns)-1].Seq
	var items []AgendaItem
	covered := first - 1
	for _, t := range in.Topics {
		if t.StartSeq > last || t.EndSeq <= covered {
			continue
		}
		it := AgendaItem{
			Title: t.Title, Summary: t.Summary, Keywords: append([]string(nil), t.Keywords...),
			StartSeq: max(t.StartSeq, covered+1), EndSeq: min(t.EndSeq, last), TopicID: t.ID,
		}
		items = append(items, it)
		covered = it.EndSeq
	}
	if seg == nil {
		seg = segment.NewTilingSegmenter(segment.TilingConfig{})
	}
	tail := turnsAfter(in.Turns, covered)
	for len(tail) > 0 {
		n := min(tailChunk, len(tail))
		chunk := tail[:n]
		tail = tail[n:]
		if err := extendAgenda(ctx, seg, &items, in.Turns, chunk); err != nil {
			return nil, err
		}
	}
	items, err := refine(ctx, in.Turns, items)
	if err != nil {
		return nil, err
	}
	tf, df := itemTerms(in.Turns, items)
	// Headings weigh a term by how rare it is in this and the earlier
	// items: streamAgenda titles an item when it is final, before the
	// later ones are known, and must title it the same.
	seen, titles := map[string]int{}, headings{}
	for i := range items {
		for w := range tf[i] {
			seen[w]++
		}
		retitle(&items[i], in.Turns, noveltyIDF(seen, i+1), words, titles)
	}
	for i := range items {
		rankKeyTerms(&items[i], tf[i], df, len(items), KeyTerms, words)
	}
	return items, nil
}

// noveltyIDF weighs a term by the items, of the n so far, that have it
// (df): log(1 + n/df), the most for a term new in the latest item.
func noveltyIDF(df map[string]int, n int) func(string) float64 {
	return func(w string) float64 { return math.Log(1 + float64(n)/float64(max(df[w], 1))) }
}

// retitle gives the item its time range and, when its title is not a
// heading already (a key-term list such as "tango mode · afterwards", a
// fallback "Topic_3_40", or none), a heading from its turns (see
// headline, with words) that none of the earlier items has (titles, to
// which it adds the item's); the title stays when no heading is found.
// A topic a model titled keeps its title.
func retitle(it *AgendaItem, turns []Turn, idf func(string) float64, words *HeadingWords, titles headings) {
	if termListTitle(it.Title) {
		if h := headline(turns, it.StartSeq, it.EndSeq, idf, words, titles.has); h != "" {
			it.Title = h
		}
	}
	titles[strings.ToLower(it.Title)] = true
	it.StartMS, it.EndMS = spanTimes(turns, it.StartSeq, it.EndSeq)
}

// headings are the titles of an agenda's items so far, lowercased.
type headings map[string]bool

func (h headings) has(title string) bool { return h[strings.ToLower(title)] }

// termListTitle reports whether a title is a list of key terms or a
// fallback name rather than a heading.
func termListTitle(t string) bool {
	t = strings.TrimSpace(t)
	return t == "" || strings.Contains(t, "·") || strings.HasPrefix(t, "Topic_")
}

// KeyTerms is how many key terms Agenda adds to each item's keywords.
const KeyTerms = 10

// itemTerms counts the key-term candidates of each item's turns (tf[i])
// and the number of items each occurs in (df). Agenda adds to each item's
// keywords the KeyTerms terms that characterise its turns best (see
// rankKeyTerms): frequent in the item (sub-linear tf), rare in the other
// items (idf), and words people name topics with (HeadingWords). Terms
// already among the keywords are not repeated.
func itemTerms(turns []Turn, items []AgendaItem) (tf []map[string]int, df map[string]int) {
	tf = make([]map[string]int, len(items))
	df = map[string]int{}
	for i, it := range items {
		tf[i] = map[string]int{}
		for _, t := range turns {
			if t.Seq < it.StartSeq || t.Seq > it.EndSeq {
				continue
			}
			countTerms(tf[i], t)
		}
		for w := range tf[i] {
			df[w]++
		}
	}
	return tf, df
}

// countTerms adds the key-term candidates of a turn to tf.
func countTerms(tf map[string]int, t Turn) {
	for _, w := range textutil.Terms(nil, markupRE.ReplaceAllString(t.Text, " ")) {
		if utf8.RuneCountInString(w) >= 3 || hasHangul(w) && utf8.RuneCountInString(w) >= 2 {
			tf[w]++
		}
	}
}

// rankKeyTerms adds to the item's keywords the n best terms of tf, the
// item's term counts, given the number of items each term occurs in (df)
// among nItems: a term's tf-idf times its factor as a heading word
// (words; nil weighs every term alike). A term said once, or one that
// makes no heading ("about", "thing"), is no key term.
func rankKeyTerms(item *AgendaItem, tf, df map[string]int, nItems, n int, words *HeadingWords) {
	type ranked struct {
		term  string
		score float64
	}
	var rs []ranked
	for w, c := range tf {
		if c < 2 || headlineStop[w] {
			continue
		}
		idf := math.Log(1 + float64(nItems)/float64(df[w]))
		rs = append(rs, ranked{w, (1 + math.Log(float64(c))) * idf * words.factor(w)})
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.term, b.term)
	})
	have := map[string]bool{}
	for _, k := range item.Keywords {
		for _, w := range textutil.Terms(nil, k) {
			have[w] = true
		}
	}
	added := 0
	for _, r := range rs {
		if added == n {
			break
		}
		if !have[r.term] {
			// A copy: the term is a piece of its turn's text.
			item.Keywords = append(item.Keywords, strings.Clone(r.term))
			have[r.term] = true
			added++
		}
	}
}

// refineSegmenter splits long agenda items into sub-items: the same
// lexical segmentation as L1 with a shorter minimum length and a lower
// absolute bar for a boundary (MinScore 0.7 instead of 1.7), chosen on
// the first 40 QMSum train meetings: it raised the share of annotated
// topics an agenda item names from 50% to 68% there, at about one item
// per five minutes of meeting.
var refineSegmenter = segment.NewTilingSegmenter(segment.TilingConfig{MinTopic: RefineMinItem, MinScore: 0.7})

// RefineMinItem is the shortest sub-item refine cuts a long topic into.
const RefineMinItem = 3 * time.Minute

// refine splits every item longer than twice RefineMinItem at the
// boundaries a finer segmentation finds in it; each part gets its own
// title, summary and keywords and keeps the topic's id.
func refine(ctx context.Context, turns []Turn, items []AgendaItem) ([]AgendaItem, error) {
	var out []AgendaItem
	for _, it := range items {
		parts, err := refineItem(ctx, it, lastTurnsOf(turns, it.StartSeq, it.EndSeq, len(turns)))
		if err != nil {
			return nil, err
		}
		out = append(out, parts...)
	}
	return out, nil
}

// refineItem cuts one item, whose turns are span, into sub-items when it
// is long enough and a finer segmentation finds boundaries in it.
func refineItem(ctx context.Context, it AgendaItem, span []Turn) ([]AgendaItem, error) {
	start, end := spanTimes(span, it.StartSeq, it.EndSeq)
	if len(span) < 2 || time.Duration(end-start)*time.Millisecond < 2*RefineMinItem {
		return []AgendaItem{it}, nil
	}
	res, err := refineSegmenter.Segment(ctx, meetingctx.SegmentInput{Turns: ContextTurns(span)})
	if err != nil {
		return nil, fmt.Errorf("refine turns %d-%d: %w", it.StartSeq, it.EndSeq, err)
	}
	if len(res.Segments) < 2 {
		return []AgendaItem{it}, nil
	}
	out := make([]AgendaItem, 0, len(res.Segments))
	for _, s := range res.Segments {
		out = append(out, AgendaItem{
			Title: s.Title, Summary: s.Summary, Keywords: s.Keywords,
			StartSeq: s.StartSeq, EndSeq: s.EndSeq, TopicID: it.TopicID,
		})
	}
	return out, nil
}

// extendAgenda segments one chunk of uncovered turns onto the agenda.
func extendAgenda(ctx context.Context, seg meetingctx.Segmenter, items *[]AgendaItem, all, chunk []Turn) error {
	in := meetingctx.SegmentInput{Turns: ContextTurns(chunk)}
	if n := len(*items); n > 0 {
		prev := (*items)[n-1]
		in.Previous = &meetingctx.Topic{
			Seq: n - 1, Title: prev.Title, Summary: prev.Summary, Keywords: prev.Keywords,
			StartSeq: prev.StartSeq, EndSeq: prev.EndSeq,
		}
		in.PreviousTurns = ContextTurns(lastTurnsOf(all, prev.StartSeq, prev.EndSeq, 10))
		in.Previous.StartMS, in.Previous.EndMS = spanTimes(all, prev.StartSeq, prev.EndSeq)
	}
	out, err := seg.Segment(ctx, in)
	if err != nil {
		return fmt.Errorf("segment turns %d-%d: %w", chunk[0].Seq, chunk[len(chunk)-1].Seq, err)
	}
	lastSeq := chunk[len(chunk)-1].Seq
	if n := len(*items); n > 0 && out.ContinueTo >= 0 {
		(*items)[n-1].EndSeq = max((*items)[n-1].EndSeq, min(out.ContinueTo, lastSeq))
	}
	for _, s := range out.Segments {
		*items = append(*items, AgendaItem{
			Title: s.Title, Summary: s.Summary, Keywords: s.Keywords, StartSeq: s.StartSeq, EndSeq: s.EndSeq,
		})
	}
	// Whatever the segmenter left out still belongs to the last item.
	if n := len(*items); n > 0 && (*items)[n-1].EndSeq < lastSeq {
		(*items)[n-1].EndSeq = lastSeq
	} else if n == 0 {
		*items = append(*items, AgendaItem{
			Title: fmt.Sprintf("Topic_%d_%d", chunk[0].Seq, lastSeq), StartSeq: chunk[0].Seq, EndSeq: lastSeq,
		})
	}
	return nil
}

// spanTimes is when the turns from..to started and ended.
func spanTimes(ts []Turn, from, to int) (start, end int64) {
	first := true
	for _, t := range ts {
		if t.Seq < from || t.Seq > to {
			continue
		}
		if first {
			start, first = t.StartMS, false
		}
		end = max(end, t.EndMS)
	}
	return start, end
}

func turnsAfter(ts []Turn, seq int) []Turn {
	for i, t := range ts {
		if t.Seq > seq {
			return ts[i:]
		}
	}
	return nil
}

func lastTurnsOf(ts []Turn, from, to, n int) []Turn {
	var out []Turn
	for _, t := range ts {
		if t.Seq >= from && t.Seq <= to {
			out = append(out, t)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// ContextTurns converts PR turns into the context engine's turns (the
// speaker as both name and id), for its segmenters and summarisers.
func ContextTurns(ts []Turn) []meetingctx.Turn {
	out := make([]meetingctx.Turn, len(ts))
	for i, t := range ts {
		out[i] = meetingctx.Turn{Seq: t.Seq, SpeakerName: t.Speaker, SpeakerID: t.Speaker, Text: t.Text, StartMS: t.StartMS, EndMS: t.EndMS}
	}
	return out
}

// topicAt returns the title of the agenda item that covers seq.
func topicAt(agenda []AgendaItem, seq int) string {
	for _, a := range agenda {
		if seq >= a.StartSeq && seq <= a.EndSeq {
			return a.Title
		}
	}
	return ""
}
