package answer

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mithub/mithub/pkg/askmode"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/tokens"
)

// Facts are the meeting's header.
type Facts struct {
	ID        string
	Title     string
	Language  string
	Status    string
	StartedAt time.Time
	Turns     int
}

// SearchedTopic is a topic that matched the question, with its turns in
// the order they should claim the budget (best first): Turns, or, when
// Index is set, Index.Docs taken in Order. Indexed turns carry their
// search terms, so answering need not tokenise them again.
type SearchedTopic struct {
	Topic meetingctx.ScoredTopic
	Turns []meetingctx.Turn
	Index *TurnIndex
	Order []int
	// Ranks[k], when set, is the turn search rank (from 1) of the k-th
	// turn in budget order, for the extractive answerer.
	Ranks []int
}

// each yields the topic's turns in budget order.
func (st *SearchedTopic) each(yield func(entry) bool) {
	if st.Index == nil {
		for i := range st.Turns {
			if !yield(entry{turn: &st.Turns[i], rank: st.rank(i)}) {
				return
			}
		}
		return
	}
	for k, j := range st.Order {
		d := &st.Index.Docs[j]
		if !yield(entry{turn: &d.Turn, doc: d, rank: st.rank(k)}) {
			return
		}
	}
}

func (st *SearchedTopic) rank(k int) int {
	if k < len(st.Ranks) {
		return st.Ranks[k]
	}
	return 0
}

// Input is everything a context may be built from. Only what fits the
// budget is used, in the priority order of the mode (see Build).
type Input struct {
	Mode     askmode.Mode
	Question string
	// System overrides the mode's default system prompt.
	System   string
	Facts    Facts
	Previous *Exchange
	// Searched are the topics that matched the question, best first, each
	// with its turns in the order they should claim the budget (best
	// first); they are shown in meeting order.
	Searched []SearchedTopic
	// Recent is L0: the last turns, oldest first.
	Recent []meetingctx.Turn
	// Pending are the turns not yet in a topic, oldest first.
	Pending []meetingctx.Turn
	// Since are the turns of the catch-up period (askmode.CatchUp), oldest
	// first.
	Since []meetingctx.Turn
	// SinceMS starts the catch-up period; a catch-up never includes a
	// turn that starts before it.
	SinceMS    int64
	Topics     []meetingctx.Topic
	Speakers   []meetingctx.Speaker
	MemoryBank string
	// Counter counts tokens; Budget is the prompt budget
	// (tokens.Budget.Available()).
	Counter tokens.Counter
	Budget  int
	// StoredTokens says Turn.Tokens were counted by Counter (at ingest),
	// so a turn's text need not be counted again.
	StoredTokens bool
	// Exact counts the joined prompt too (Context.ExactTotal).
	Exact bool
	// TurnsOnly leaves Context.System empty: for an answerer that reads
	// only the numbered turns (see ReadsPrompt). Accounting is unchanged.
	TurnsOnly bool
	// Prefixes, when set, keeps the counts of turn line prefixes from one
	// build to the next; it must only ever see this Counter.
	Prefixes *PrefixCounts
	// Exclude keeps turns out of every section, whatever the mode:
	// the question's own turn and what else was said to the bot.
	Exclude *Exclusion
}

// Context is a packed prompt.
type Context struct {
	// System is the system message: instructions and the packed sections.
	System string
	// User is the user message: the question.
	User string
	// Turns are the turns in the prompt; the line numbered [n] is Turns[n-1].
	// They point into the Input the context was built from, which must
	// not change while the context is in use.
	Turns []*meetingctx.Turn
	// Sections accounts for every candidate section in priority order.
	Sections []Section
	// Total is the prompt's size, System and User plus message framing,
	// as the sum of its parts' counts; it never exceeds Budget unless the
	// system prompt and question alone do. Parts are counted apart and the
	// joined text counts the same or less (adjacent newlines merge), and a
	// turn counted from its stored count carries a token of slack for its
	// joint with the line's prefix.
	Total int
	// ExactTotal, with Input.Exact, is the count of the joined prompt.
	ExactTotal int
	Budget     int
	// index[n-1] is the search terms of Turns[n-1], or nil.
	index []*Indexed
	// rank[n-1] is the turn search rank of Turns[n-1] (from 1), or 0.
	rank []int
}

// Section is the accounting of one part of the context.
type Section struct {
	Name string `json:"name"`
	// Tokens used; Items included of Offered (turns, topics, speakers, or
	// 1 for a text block).
	Tokens    int  `json:"tokens"`
	Items     int  `json:"items"`
	Offered   int  `json:"offered"`
	Truncated bool `json:"truncated"`
}

// FramingTokens is what chat message framing adds around two messages.
const FramingTokens = 12

// Section names, also the priority order in Build's documentation.
const (
	secFacts    = "meeting"
	secPrevious = "previous_exchange"
	secSearched = "searched_topics"
	secPending  = "pending_turns"
	secRecent   = "recent_turns"
	secSince    = "period_turns"
	secTopics   = "topics"
	secSpeakers = "speakers"
	secMemory   = "memory_bank"
)

// priorities lists, per mode, the order in which sections claim the
// budget after the system prompt and the question (always kept):
//
//	answer:   meeting, previous exchange, searched topics' turns (best
//	          topic first), pending turns (newest first), recent turns
//	          (newest first), topic list, speakers, memory bank
//	catch_up: meeting, topics of the period, period turns (newest first),
//	          speakers, memory bank
var priorities = map[askmode.Mode][]string{
	askmode.Answer:  {secFacts, secPrevious, secSearched, secPending, secRecent, secTopics, secSpeakers, secMemory},
	askmode.CatchUp: {secFacts, secTopics, secSince, secSpeakers, secMemory},
}

// order is the reading order of sections in the prompt.
var order = []string{secFacts, secMemory, secSpeakers, secTopics, secSearched, secSince, secRecent, secPending, secPrevious}

// Build packs in into its budget. The system prompt and the question are
// always kept; sections are then admitted in the mode's priority
// order, turn by turn (a turn is never cut), so the result fits the budget
// whenever the system prompt and the question do.
func Build(in Input) (Context, error) {
	if !in.Mode.Valid() {
		return Context{}, fmt.Errorf("build context: unknown mode %q", in.Mode)
	}
	if in.Counter == nil {
		return Context{}, fmt.Errorf("build context: no token counter")
	}
	system := in.System
	if system == "" {
		system = defaultSystem[in.Mode]
	}
	user := in.Question
	if user == "" {
		user = defaultQuestion[in.Mode]
	}
	b := builder{in: in, budget: in.Budget, text: map[string]string{}, turns: map[string][]entry{},
		prefixes: map[prefixKey]int{}}
	b.used = in.Counter.Count(system) + in.Counter.Count(user) + FramingTokens
	b.excluded = in.Exclude.excluded(&in)
	for _, name := range priorities[in.Mode] {
		b.admit(name)
	}
	return b.render(system, user), nil
}

type builder struct {
	in     Input
	budget int
	used   int
	seen   seqSet // seqs already admitted
	// excluded are seqs never admitted (Input.Exclude).
	excluded seqSet
	text     map[string]string
	turns    map[string][]entry
	secs     []Section
	// prefixes memoises the token count of turn line prefixes.
	prefixes map[prefixKey]int
}

// seqSet is a set of turn seqs (small non-negative numbers), as bits.
type seqSet []uint64

func (s seqSet) has(seq int) bool {
	i := seq >> 6
	return seq >= 0 && i < len(s) && s[i]&(1<<(seq&63)) != 0
}

func (s *seqSet) add(seq int) {
	if seq < 0 {
		return
	}
	i := seq >> 6
	if i >= len(*s) {
		*s = append(*s, make([]uint64, i+1-len(*s))...)
	}
	(*s)[i] |= 1 << (seq & 63)
}

// entry is an admitted turn with its search terms, when known. Both
// point into the builder's input, which it never changes.
type entry struct {
	turn *meetingctx.Turn
	doc  *Indexed
	rank int
}

func (b *builder) room() int { return b.budget - b.used }

// heading charges a section's heading when its first item is admitted.
func (b *builder) heading(name string) int {
	return b.in.Counter.Count("\n\n" + headings[name] + "\n")
}

func (b *builder) admit(name string) {
	in := b.in
	switch name {
	case secFacts:
		b.block(name, factsText(in.Facts), false)
	case secPrevious:
		if in.Previous != nil {
			b.block(name, previousText(in.Previous), true)
		}
	case secSearched:
		b.turnList(name, func(yield func(entry) bool) {
			for i := range in.Searched {
				more := true
				in.Searched[i].each(func(e entry) bool { more = yield(e); return more })
				if !more {
					return
				}
			}
		})
	case secPending:
		b.turnList(name, b.period(in.Pending))
	case secRecent:
		b.turnList(name, b.period(in.Recent))
	case secSince:
		b.turnList(name, b.period(in.Since))
	case secTopics:
		b.topicList(name)
	case secSpeakers:
		b.block(name, speakersText(in.Speakers), true)
	case secMemory:
		b.block(name, strings.TrimSpace(in.MemoryBank), true)
	}
}

// period yields ts newest first, without the turns before the catch-up
// start.
func (b *builder) period(ts []meetingctx.Turn) iter.Seq[entry] {
	return func(yield func(entry) bool) {
		for i := range ts {
			t := &ts[len(ts)-1-i]
			if b.in.Mode == askmode.CatchUp && t.StartMS < b.in.SinceMS {
				continue
			}
			if !yield(entry{turn: t}) {
				return
			}
		}
	}
}

// block admits a text section whole, or cut at a line end when cut is
// allowed.
func (b *builder) block(name, text string, cut bool) {
	if text == "" {
		return
	}
	sec := Section{Name: name, Offered: 1}
	h := b.heading(name)
	b.used += h
	defer func() {
		if b.text[name] == "" {
			b.used -= h
		}
	}()
	text += "\n"
	n := b.in.Counter.Count(text)
	if n > b.room() && cut {
		lines := strings.SplitAfter(text, "\n")
		var kept strings.Builder
		k := 0
		for _, l := range lines {
			c := b.in.Counter.Count(l)
			if k+c > b.room() {
				break
			}
			kept.WriteString(l)
			k += c
		}
		text, n, sec.Truncated = kept.String(), k, true
	}
	if n == 0 || n > b.room() {
		b.secs = append(b.secs, sec)
		return
	}
	b.used += n
	sec.Tokens, sec.Items = n+h, 1
	b.text[name] = text
	b.secs = append(b.secs, sec)
}

// turnList admits turns one by one, in the order ts yields them, while
// they fit; a turn already admitted by another section is skipped.
func (b *builder) turnList(name string, ts iter.Seq[entry]) {
	sec := Section{Name: name}
	var kept []entry
	full := false
	for e := range ts {
		t := e.turn
		if b.seen.has(t.Seq) || b.excluded.has(t.Seq) {
			continue
		}
		sec.Offered++
		if full {
			continue
		}
		n := b.turnTokens(*t)
		if len(kept) == 0 {
			n += b.heading(name)
		}
		if n > b.room() {
			full, sec.Truncated = true, true
			continue
		}
		b.used += n
		sec.Tokens += n
		b.seen.add(t.Seq)
		kept = append(kept, e)
	}
	// Shown in meeting order, whatever order they were admitted in.
	slices.SortFunc(kept, func(a, b entry) int { return a.turn.Seq - b.turn.Seq })
	sec.Items = len(kept)
	b.turns[name] = kept
	b.secs = append(b.secs, sec)
}

// turnTokens is what t's prompt line may cost. With the count stored at
// ingest it counts only the line's prefix and adds slack for the joint;
// the final recount in Build catches any shortfall. The number is not
// known yet: count the widest it can be.
func (b *builder) turnTokens(t meetingctx.Turn) int {
	if t.Tokens <= 0 || !b.in.StoredTokens {
		return b.in.Counter.Count(string(appendTurnLine(nil, 999999, t)))
	}
	return b.prefixTokens(t) + t.Tokens + 1
}

// prefixKey identifies line prefixes that count the same: the counters
// split digits into pieces of their own, so two clocks of the same width
// count alike.
type prefixKey struct {
	name  string
	low   bool
	clock int
}

// prefixTokens counts the prefix of t's line ("[n] mm:ss name: "),
// once per speaker and clock width.
func (b *builder) prefixTokens(t meetingctx.Turn) int {
	var clock [16]byte
	k := prefixKey{name: speakerOf(t), low: lowConf(t), clock: len(appendClock(clock[:0], t.StartMS))}
	if n, ok := b.prefixes[k]; ok {
		return n
	}
	n, ok := b.in.Prefixes.get(k)
	if !ok {
		n = b.in.Counter.Count(string(appendTurnLine(nil, 999999, meetingctx.Turn{StartMS: t.StartMS,
			SpeakerID: t.SpeakerID, SpeakerName: t.SpeakerName, Confidence: t.Confidence})))
		b.in.Prefixes.put(k, n)
	}
	b.prefixes[k] = n
	return n
}

// PrefixCounts keeps the token counts of turn line prefixes (one per
// speaker name, confidence mark and clock width) across builds, for one
// counter. It is safe for concurrent use, and starts afresh when it holds
// maxPrefixCounts of them. A nil *PrefixCounts keeps nothing.
type PrefixCounts struct {
	mu sync.RWMutex
	m  map[prefixKey]int
}

const maxPrefixCounts = 1 << 14

// NewPrefixCounts returns an empty PrefixCounts.
func NewPrefixCounts() *PrefixCounts { return &PrefixCounts{m: map[prefixKey]int{}} }

func (p *PrefixCounts) get(k prefixKey) (int, bool) {
	if p == nil {
		return 0, false
	}
	p.mu.RLock()
	n, ok := p.m[k]
	p.mu.RUnlock()
	return n, ok
}

func (p *PrefixCounts) put(k prefixKey, n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if len(p.m) >= maxPrefixCounts {
		clear(p.m)
	}
	p.m[k] = n
	p.mu.Unlock()
}

// topicList admits topic summaries, oldest first; for catch-up only the
// topics that reach into the period.
func (b *builder) topicList(name string) {
	sec := Section{Name: name}
	var sb strings.Builder
	for _, t := range b.in.Topics {
		if b.in.Mode == askmode.CatchUp && t.EndMS < b.in.SinceMS {
			continue
		}
		sec.Offered++
		line := topicLine(t)
		n := b.in.Counter.Count(line)
		if sec.Items == 0 {
			n += b.heading(name)
		}
		if n > b.room() {
			sec.Truncated = true
			break
		}
		b.used += n
		sec.Tokens += n
		sec.Items++
		sb.WriteString(line)
	}
	b.text[name] = sb.String()
	b.secs = append(b.secs, sec)
}

var headings = map[string]string{
	secFacts:    "## Meeting",
	secPrevious: "## Previous exchange in this thread",
	secSearched: "## Turns of the topics that match the question",
	secPending:  "## Latest turns, not yet grouped into topics",
	secRecent:   "## Recent turns",
	secSince:    "## Turns of the period",
	secTopics:   "## Topics so far",
	secSpeakers: "## Speakers",
	secMemory:   "## Team memory bank",
}

// render writes the admitted sections in reading order and numbers the
// turns. Headings are counted into the total.
func (b *builder) render(system, user string) Context {
	out := Context{User: user, Budget: b.in.Budget, Sections: b.secs}
	prompt := !b.in.TurnsOnly || b.in.Exact
	n := 0
	for _, es := range b.turns {
		n += len(es)
	}
	out.Turns, out.index, out.rank = make([]*meetingctx.Turn, 0, n), make([]*Indexed, 0, n), make([]int, 0, n)
	var sb []byte
	sb = append(sb, system...)
	for _, name := range order {
		if es := b.turns[name]; len(es) > 0 {
			if prompt {
				sb = append(sb, "\n\n"+headings[name]+"\n"...)
			}
			for _, e := range es {
				out.Turns = append(out.Turns, e.turn)
				out.index = append(out.index, e.doc)
				out.rank = append(out.rank, e.rank)
				if prompt {
					sb = appendTurnLine(sb, len(out.Turns), *e.turn)
				}
			}
			continue
		}
		if tx := b.text[name]; tx != "" && prompt {
			sb = append(sb, "\n\n"+headings[name]+"\n"+tx...)
		}
	}
	if prompt {
		out.System = string(sb)
	}
	out.Total = b.used
	if b.in.Exact {
		out.ExactTotal = b.in.Counter.Count(out.System) + b.in.Counter.Count(user) + FramingTokens
	}
	return out
}

// appendTurnLine appends t's prompt line numbered n:
// "[n] mm:ss name: text".
func appendTurnLine(dst []byte, n int, t meetingctx.Turn) []byte {
	dst = append(dst, '[')
	dst = strconv.AppendInt(dst, int64(n), 10)
	dst = append(dst, "] "...)
	dst = appendClock(dst, t.StartMS)
	dst = append(dst, ' ')
	dst = append(dst, speakerOf(t)...)
	if lowConf(t) {
		dst = append(dst, " (low transcription confidence)"...)
	}
	dst = append(dst, ": "...)
	dst = append(dst, oneLine(t.Text)...)
	return append(dst, '\n')
}

func speakerOf(t meetingctx.Turn) string {
	if t.SpeakerName != "" {
		return t.SpeakerName
	}
	return t.SpeakerID
}

func lowConf(t meetingctx.Turn) bool { return t.Confidence > 0 && t.Confidence < LowConfidence }

func topicLine(t meetingctx.Topic) string {
	kw := ""
	if len(t.Keywords) > 0 {
		kw = " [" + strings.Join(t.Keywords, ", ") + "]"
	}
	return fmt.Sprintf("- %s–%s %s%s: %s\n", Clock(t.StartMS), Clock(t.EndMS), oneLine(t.Title), kw, oneLine(t.Summary))
}

func factsText(f Facts) string {
	var sb strings.Builder
	if f.Title != "" {
		fmt.Fprintf(&sb, "Title: %s\n", oneLine(f.Title))
	}
	if f.Language != "" {
		fmt.Fprintf(&sb, "Language: %s\n", f.Language)
	}
	if f.Status != "" {
		fmt.Fprintf(&sb, "Status: %s\n", f.Status)
	}
	if !f.StartedAt.IsZero() {
		fmt.Fprintf(&sb, "Started: %s\n", f.StartedAt.UTC().Format(time.RFC3339))
	}
	if f.Turns > 0 {
		fmt.Fprintf(&sb, "Turns so far: %d\n", f.Turns)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

func previousText(p *Exchange) string {
	return "Q: " + oneLine(p.Question) + "\nA: " + oneLine(p.Answer)
}

func speakersText(ss []meetingctx.Speaker) string {
	var sb strings.Builder
	for _, s := range ss {
		name := s.Name
		if name == "" {
			name = s.ID
		}
		fmt.Fprintf(&sb, "- %s (%s): %d turns, %s talk time, last spoke at %s\n",
			oneLine(name), s.Role, s.Turns, Clock(s.TalkMS), Clock(s.LastSpokeMS))
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// oneLine keeps a prompt line on one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

var defaultSystem = map[askmode.Mode]string{
	askmode.Answer: "You are MitHub, an assistant taking part in a live meeting. Answer the question using only " +
		"the meeting context below. Cite the numbered transcript lines you rely on as [n]. If the context " +
		"does not contain the answer, say so. Answer in the language of the question, briefly.",
	askmode.CatchUp: "You are MitHub, an assistant taking part in a live meeting. Someone missed part of it: tell " +
		"them what was said in the period below — topics, decisions, open questions — citing the numbered " +
		"transcript lines as [n]. Answer in the language of the request, briefly.",
}

var defaultQuestion = map[askmode.Mode]string{
	askmode.Answer:  "",
	askmode.CatchUp: "What did I miss?",
}
