package prdoc

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/textutil"
)

// ProviderLocal names the rule-based extractor in Document.Provider.
const ProviderLocal = "local"

// Local extracts a PR with the cue rules; it needs no model. It is safe
// for concurrent use.
type Local struct {
	seg  meetingctx.Segmenter
	opts LocalOptions
}

// LocalOptions shape the local extractor's lists.
type LocalOptions struct {
	// MaxDecisions, MaxActionItems and MaxOpenQuestions cap the lists
	// (defaults MaxDecisions, MaxActionItems, MaxOpenQuestions).
	MaxDecisions     int
	MaxActionItems   int
	MaxOpenQuestions int
	// Model ranks the decision candidates (default DefaultDecisionModel).
	Model *DecisionModel
	// CueOnly ranks decisions as the first cue rules did: any decision
	// cue, scored by the number of cues matched. For comparisons.
	CueOnly bool
}

var _ Extractor = (*Local)(nil)

// NewLocal returns the rule-based extractor with the default options;
// turns no topic covers are segmented with the local provider.
func NewLocal() *Local {
	return NewLocalWith(LocalOptions{})
}

// NewLocalWith returns the rule-based extractor with options o.
func NewLocalWith(o LocalOptions) *Local {
	if o.MaxDecisions <= 0 {
		o.MaxDecisions = MaxDecisions
	}
	if o.MaxActionItems <= 0 {
		o.MaxActionItems = MaxActionItems
	}
	if o.MaxOpenQuestions <= 0 {
		o.MaxOpenQuestions = MaxOpenQuestions
	}
	if o.Model == nil {
		m := DefaultDecisionModel()
		o.Model = &m
	}
	return &Local{seg: segment.NewTilingSegmenter(segment.TilingConfig{}), opts: o}
}

// Extract builds the agenda from the topics and the items from the cue
// rules.
func (l *Local) Extract(ctx context.Context, in Input) (Document, error) {
	agenda, err := Agenda(ctx, in, l.seg)
	if err != nil {
		return Document{}, err
	}
	items := l.extractItems(in.Turns, agenda, in.Date)
	return assemble(in, agenda, items, ProviderLocal), nil
}

// items are the lists the extractors produce besides the agenda.
type items struct {
	decisions []Decision
	actions   []ActionItem
	questions []OpenQuestion
}

// extractItems applies the cue rules to every sentence of turns.
func (l *Local) extractItems(turns []Turn, agenda []AgendaItem, date time.Time) items {
	sink := l.newItemSink(speakerNames(turns))
	sink.turns = len(turns)
	for i := range turns {
		sink.turn(turns, i, agenda, date)
	}
	return sink.items()
}

// itemSink applies the cue rules turn by turn and keeps the best
// candidates of each list in bounded state (see collector).
type itemSink struct {
	speakers []string
	opts     LocalOptions
	prev     *Turn // the turn before the current one
	// turns is the meeting's number of turns; picker chooses the
	// decisions (nil for the cue-only ranking, which uses ds).
	turns  int
	picker *decisionPicker
	ds     *collector[Decision]
	as     *collector[ActionItem]
	qs     *collector[OpenQuestion]
	recap  recap // the recap under way, if any
	// covered is the seq of the turn that took on the latest request
	// kept as an action item: its commitments to "it" alone are that
	// item.
	covered int
}

func (l *Local) newItemSink(speakers []string) *itemSink {
	var picker *decisionPicker
	if !l.opts.CueOnly {
		picker = newDecisionPicker(l.opts.MaxDecisions)
	}
	return &itemSink{
		picker:   picker,
		speakers: speakers,
		opts:     l.opts,
		covered:  -1,
		ds:       newCollector(l.opts.MaxDecisions, func(d Decision) string { return d.Text }),
		as:       newActionCollector(l.opts.MaxActionItems),
		qs:       newCollector(l.opts.MaxOpenQuestions, func(q OpenQuestion) string { return q.Text }),
	}
}

// lookTurns is the most turns after a turn the rules look at: a request's
// owner, a proposal's agreement, a question's answer.
const lookTurns = answerTurns

// turn applies the cue rules to the sentences of turns[i]; the next
// lookTurns turns are what a request's owner, a proposal's agreement and
// a question's answer are looked up in.
func (k *itemSink) turn(turns []Turn, i int, agenda []AgendaItem, date time.Time) {
	t := turns[i]
	defer func() { k.prev = &t }()
	var before *sentence // the turn's sentence before s
	for _, s := range sentences(t.Text) {
		if !s.substantive() {
			continue
		}
		prev := before
		before = &s
		if k.recap.announce(t, s) && len(strings.Fields(s.text)) <= announceWords {
			continue
		}
		topic := topicAt(agenda, t.Seq)
		if k.recapped(t, s, topic, date) {
			continue
		}
		text := cutRunes(s.text, MaxItemRunes)
		question := s.isQuestion()
		request := anyMatch(requestCues, s.norm)
		explicit := anyMatch(openCues, s.norm) && !personalDoubt(s)
		decision, score := k.decision(s, turns, i)
		if decision {
			k.addDecision(Decision{Text: text, Speaker: t.Speaker, Seq: t.Seq, Topic: topic}, score)
		}
		if anyMatch(actionCues, s.norm) && (!question || request) && !weakCommitment(s, request, date) {
			k.action(turns, i, s, prev, request, topic, date)
		}
		if !decision && (explicit || question && !request && openQuestion(s) && !answered(turns, i, s)) {
			score := float64(min(s.terms, 20)) / 10
			if explicit {
				score += 2
			}
			k.qs.add(OpenQuestion{Text: text, Asker: t.Speaker, Seq: t.Seq, Topic: topic}, t.Seq, score)
		}
	}
}

// action adds the action item of sentence s of turns[i], an action
// sentence (prev is the turn's sentence before it), unless it is a
// request nobody owns (unownedRequest) or a commitment to "it" that takes
// on a request kept as an item.
func (k *itemSink) action(turns []Turn, i int, s sentence, prev *sentence, request bool, topic string, date time.Time) {
	t := turns[i]
	if request {
		unowned, reply := unownedRequest(turns, i, s, k.speakers, date)
		if unowned {
			return
		}
		if reply >= 0 {
			k.covered = turns[reply].Seq
		}
	}
	bonus := 0.0
	if actionLabelRE.MatchString(s.norm) {
		bonus = labelledBonus
	}
	text := commitment(s)
	if tasks := taskList(s, text); len(tasks) > 1 {
		own := owner(turns, i, s, k.speakers, request)
		for _, task := range tasks {
			k.addActionDue(ActionItem{Text: capWords(upperFirst(task)), Owner: own, Seq: t.Seq, Topic: topic}, s, newSentence(task), date, bonus)
		}
		return
	}
	if vague(text) {
		switch {
		case prev != nil:
			text = capWords(prev.text) + " " + text
		case t.Seq == k.covered && !request:
			return // the request it takes on is the item
		case k.prev != nil && k.prev.Speaker != t.Speaker:
			// An answer to "who will …?" takes on what it asks ("Trial
			// 화면 문구는 누가 써요?" — "…3월 19일까지 드릴게요").
			if q, ok := lastQuestion(k.prev.Text); ok {
				text = capWords(q) + " " + text
			}
		}
	}
	k.addAction(ActionItem{Text: text, Owner: owner(turns, i, s, k.speakers, request), Seq: t.Seq, Topic: topic}, s, date, bonus)
}

// lastQuestion is the last sentence of a turn when it is a question.
func lastQuestion(text string) (string, bool) {
	ss := sentences(text)
	if len(ss) == 0 || !ss[len(ss)-1].isQuestion() {
		return "", false
	}
	return ss[len(ss)-1].text, true
}

// recapped adds sentence s of turn t as the item a recap reads out (see
// recap) and reports whether it did.
func (k *itemSink) recapped(t Turn, s sentence, topic string, date time.Time) bool {
	switch k.recap.reading(t) {
	case recapDecisions:
		text, ok := numberedPoint(s)
		if !ok || s.isQuestion() {
			return false
		}
		k.addDecision(Decision{Text: cutRunes(text, MaxItemRunes), Speaker: t.Speaker, Seq: t.Seq, Topic: topic}, listedScore)
		return true
	case recapActions:
		owner, rest := addressee(s, k.speakers, t.Speaker)
		if owner == "" {
			return false
		}
		for _, task := range recapTasks(rest) {
			k.addAction(ActionItem{Text: capWords(upperFirst(task.text)), Owner: owner, Seq: t.Seq, Topic: topic}, newSentence(task.due), date, recapBonus)
		}
		return true
	}
	return false
}

// addDecision offers a decision with its score to the list.
func (k *itemSink) addDecision(d Decision, score float64) {
	if k.picker != nil {
		k.picker.add(d, score)
	} else {
		k.ds.add(d, d.Seq, score)
	}
}

// addAction offers an action item taken from sentence s to the list, with
// the due date s states: scored by the action cues s matches, one more
// for a due date, plus bonus. An item without an owner is left out.
func (k *itemSink) addAction(a ActionItem, s sentence, date time.Time, bonus float64) {
	k.addActionDue(a, s, s, date, bonus)
}

// addActionDue is addAction for an item that is one task of sentence s,
// its due date read from due.
func (k *itemSink) addActionDue(a ActionItem, s, due sentence, date time.Time, bonus float64) {
	if a.Owner == "" {
		return
	}
	a.Due, a.DueDate = findDue(due, date)
	score := cueScore(actionCues, s) + bonus
	if a.Due != "" {
		score++
	}
	k.as.add(a, a.Seq, score)
}

// explicitBonus is added to the score of a decision with a decision or
// "go with" cue.
const explicitBonus = 0.5

// labelledBonus is added to the score of a decision or action item
// someone labelled as one ("결정: …", "Decision: …", "액션 아이템: …"): it
// outranks every other candidate, a recap's points too, and a decision is
// kept however close it is to another (see decisionPicker.result).
const labelledBonus = 100

// listedScore is the score of a numbered point of a decisions recap
// (recap): below the labelled decisions, above every other candidate,
// and, like them, kept however close it is to another.
const listedScore = labelledBonus / 2

// labelRE matches a sentence that starts with a decision label,
// actionLabelRE one that starts with an action-item label.
var (
	labelRE       = regexp.MustCompile(`^\s*(결정\s*(사항)?|합의\s*(사항)?|확정|decision|decided|agreed|resolved)\s*[:：]`)
	actionLabelRE = regexp.MustCompile(`^\s*(액션\s*아이템|할\s*일|action\s*items?|to-?do)\s*[:：]`)
)

// decision reports whether s is a decision candidate and its score.
func (k *itemSink) decision(s sentence, turns []Turn, i int) (bool, float64) {
	if k.opts.CueOnly {
		ok := !s.isQuestion() && !anyMatch(openCues, s.norm) && anyMatch(decisionCues, s.norm)
		return ok, cueScore(decisionCues, s)
	}
	f, ok := decisionFeatures(s, k.prev, turns, i)
	labelled := labelRE.MatchString(s.norm) && !s.isQuestion()
	switch {
	case ok && labelled:
		return true, labelledBonus + k.opts.Model.Score(f)
	case labelled:
		return true, labelledBonus
	case !ok:
		return false, 0
	}
	// An explicit decision outranks what the model prefers: the QMSum
	// labels mark discussions, not the sentence that settles them.
	return true, k.opts.Model.Score(f) + explicitBonus*(f[1]+f[2])
}

func (k *itemSink) items() items {
	ds := k.ds.result()
	if k.picker != nil {
		ds = k.picker.result(k.turns)
	}
	return items{decisions: ds, actions: k.as.result(), questions: k.qs.result()}
}

// scored keeps an item's rank for capping; ord is its arrival order.
type scored[T any] struct {
	item  T
	seq   int
	score float64
	ord   int
}

// maxSeen bounds the term sets a collector compares new candidates with.
const maxSeen = 1024

// collector keeps the n best of a list of candidates that arrive in
// meeting order: a candidate whose terms repeat an earlier kept one's
// (Jaccard >= 0.8) is dropped, the rest are ranked by score, ties by
// arrival. Its state is bounded: it holds at most 4n candidates (pruning
// to the n best is exact, since a candidate out of the n best of a prefix
// never comes back) and the term sets of the last maxSeen kept ones, so
// for lists of up to maxSeen kept candidates the result is exactly that of
// ranking the whole list.
type collector[T any] struct {
	n    int
	text func(T) string
	// same, when set, reports two candidates that say one thing in other
	// words: of such candidates only the better one is ranked.
	same func(a, b T) bool
	kept []scored[T]
	seen [][]string // ring of sorted term sets
	next int        // ring position once seen is full
	ord  int
}

func newCollector[T any](n int, text func(T) string) *collector[T] {
	return &collector[T]{n: n, text: text}
}

func (c *collector[T]) add(item T, seq int, score float64) {
	terms := termSet(c.text(item))
	for _, s := range c.seen {
		if jaccard(terms, s) >= 0.8 {
			return
		}
	}
	if len(c.seen) < maxSeen {
		c.seen = append(c.seen, terms)
	} else {
		c.seen[c.next] = terms
		c.next = (c.next + 1) % maxSeen
	}
	c.kept = append(c.kept, scored[T]{item: item, seq: seq, score: score, ord: c.ord})
	c.ord++
	if len(c.kept) >= 4*c.n+4 {
		c.prune()
	}
}

// prune keeps the n best candidates, in arrival order.
func (c *collector[T]) prune() {
	c.kept = c.best()
	slices.SortFunc(c.kept, func(a, b scored[T]) int { return cmp.Compare(a.ord, b.ord) })
}

// best is the n best candidates, without one that is the same as a
// better one, best first.
func (c *collector[T]) best() []scored[T] {
	slices.SortStableFunc(c.kept, func(a, b scored[T]) int { return cmp.Compare(b.score, a.score) })
	out := make([]scored[T], 0, min(c.n, len(c.kept)))
	for _, x := range c.kept {
		if len(out) == c.n {
			break
		}
		if c.same == nil || !slices.ContainsFunc(out, func(o scored[T]) bool { return c.same(o.item, x.item) }) {
			out = append(out, x)
		}
	}
	return out
}

// result is the n best candidates in meeting order, those of one turn in
// the order said.
func (c *collector[T]) result() []T {
	xs := c.best()
	slices.SortFunc(xs, func(a, b scored[T]) int { return cmp.Or(cmp.Compare(a.seq, b.seq), cmp.Compare(a.ord, b.ord)) })
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = x.item
	}
	return out
}

// cueScore counts the cue patterns a sentence matches.
func cueScore(res []*regexp.Regexp, s sentence) float64 {
	n := 0.0
	for _, re := range res {
		if re.MatchString(s.norm) {
			n++
		}
	}
	return n + float64(min(s.terms, 20))/20
}

// owner picks the owner of an action item among the speakers: for a
// request, a speaker named in it or the next other speaker (who answers
// it); for a commitment, the speaker; otherwise a named speaker, nobody
// when the sentence is about a third person ("he", "they"), or the
// speaker.
func owner(turns []Turn, i int, s sentence, speakers []string, request bool) string {
	cur := turns[i].Speaker
	named := namedSpeaker(s, speakers, cur)
	switch {
	case request && named != "":
		return named
	case request:
		for j := i + 1; j < len(turns) && j <= i+3; j++ {
			if turns[j].Speaker != cur && turns[j].Speaker != "" {
				return turns[j].Speaker
			}
		}
		return ""
	case anyMatch(firstPersonCues, s.norm):
		return cur
	case named != "":
		return named
	case otherSubjectRE.MatchString(s.norm):
		// "He'll get you some data", "They will send us the figures":
		// nobody the sentence names is in the meeting.
		return ""
	}
	return cur
}

// otherSubjectRE is a third person a commitment may be about.
var otherSubjectRE = regexp.MustCompile(`\b(he|she|they|he'll|she'll|they'll|he's|she's|they're)\b`)

// namedSpeaker returns a speaker other than cur whose name the sentence
// mentions; a Korean one also by the given name of a three-syllable name
// opening a word ("민준 님" names 박민준), and anyone by the name the
// sentence opens by addressing them with ("David, can you …" names David
// Park; see addressee).
func namedSpeaker(s sentence, speakers []string, cur string) string {
	words := map[string]bool{}
	for _, w := range textutil.Terms(nil, s.text) {
		words[w] = true
	}
	for _, name := range speakers {
		if name == cur || utf8.RuneCountInString(name) < 2 {
			continue
		}
		lower := strings.ToLower(name)
		if hasHangul(name) {
			if strings.Contains(s.norm, lower) || meetingctx.NamesSpeaker(s.text, name) {
				return name
			}
			continue
		}
		if words[lower] || strings.Contains(" "+s.norm+" ", " "+lower+" ") {
			return name
		}
	}
	name, _ := addressee(s, speakers, cur)
	return name
}

func speakerNames(turns []Turn) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range turns {
		if t.Speaker != "" && !seen[t.Speaker] {
			seen[t.Speaker] = true
			out = append(out, t.Speaker)
		}
	}
	// Longer names first, so "Project Manager" wins over "Manager".
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return out
}

// termSet is the sorted distinct terms of s.
func termSet(s string) []string {
	ts := textutil.Terms(nil, s)
	slices.Sort(ts)
	return slices.Compact(ts)
}

// jaccard is |a ∩ b| / |a ∪ b| of two sorted term sets (1 for two empty
// ones).
func jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := shared(a, b)
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// shared is |a ∩ b| of two sorted term sets.
func shared(a, b []string) int {
	n := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch c := strings.Compare(a[i], b[j]); {
		case c == 0:
			n++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return n
}
