package prdoc

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/llm/local"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/textutil"
)

// ProviderLocal names the rule-based extractor in Document.Provider.
const ProviderLocal = "local"

// Local extracts a PR with the cue rules; it needs no model. It is safe
// for concurrent use.
type Local struct {
	seg meetingctx.Segmenter
}

var _ Extractor = (*Local)(nil)

// NewLocal returns the rule-based extractor; turns no topic covers are
// segmented with the local provider.
func NewLocal() *Local {
	return &Local{seg: local.NewTilingSegmenter(local.TilingConfig{})}
}

// Extract builds the agenda from the topics and the items from the cue
// rules.
func (l *Local) Extract(ctx context.Context, in Input) (Document, error) {
	agenda, err := Agenda(ctx, in, l.seg)
	if err != nil {
		return Document{}, err
	}
	items := extractItems(in.Turns, agenda, in.Date)
	return assemble(in, agenda, items, ProviderLocal), nil
}

// items are the lists the extractors produce besides the agenda.
type items struct {
	decisions []Decision
	actions   []ActionItem
	questions []OpenQuestion
}

// scored keeps an item's rank for capping.
type scored[T any] struct {
	item  T
	seq   int
	score float64
}

// extractItems applies the cue rules to every sentence of turns.
func extractItems(turns []Turn, agenda []AgendaItem, date time.Time) items {
	speakers := speakerNames(turns)
	var (
		ds []scored[Decision]
		as []scored[ActionItem]
		qs []scored[OpenQuestion]
	)
	for i, t := range turns {
		for _, s := range sentences(t.Text) {
			if !s.substantive() {
				continue
			}
			topic := topicAt(agenda, t.Seq)
			text := cutRunes(s.text, MaxItemRunes)
			question := s.isQuestion()
			request := anyMatch(requestCues, s.norm)
			explicit := anyMatch(openCues, s.norm)
			decision := !question && !explicit && anyMatch(decisionCues, s.norm)
			if decision {
				ds = append(ds, scored[Decision]{Decision{Text: text, Speaker: t.Speaker, Seq: t.Seq, Topic: topic}, t.Seq, cueScore(decisionCues, s)})
			}
			if anyMatch(actionCues, s.norm) && (!question || request) {
				due, dueDate := findDue(s, date)
				a := ActionItem{Text: text, Owner: owner(turns, i, s, speakers, request), Due: due, DueDate: dueDate, Seq: t.Seq, Topic: topic}
				score := cueScore(actionCues, s)
				if due != "" {
					score++
				}
				as = append(as, scored[ActionItem]{a, t.Seq, score})
			}
			if !decision && (explicit || question && s.terms >= 3 && !fillerRE.MatchString(s.norm) && !request && !answered(turns, i)) {
				score := float64(s.terms) / 10
				if explicit {
					score += 2
				}
				qs = append(qs, scored[OpenQuestion]{OpenQuestion{Text: text, Asker: t.Speaker, Seq: t.Seq, Topic: topic}, t.Seq, score})
			}
		}
	}
	return items{
		decisions: top(dedupe(ds, func(d Decision) string { return d.Text }), MaxDecisions),
		actions:   top(dedupe(as, func(a ActionItem) string { return a.Text }), MaxActionItems),
		questions: top(dedupe(qs, func(q OpenQuestion) string { return q.Text }), MaxOpenQuestions),
	}
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

// answered reports whether one of the next two turns by someone else
// settles the question with a decision cue.
func answered(turns []Turn, i int) bool {
	seen := 0
	for j := i + 1; j < len(turns) && seen < 2; j++ {
		if turns[j].Speaker == turns[i].Speaker {
			continue
		}
		seen++
		if s := newSentence(turns[j].Text); anyMatch(decisionCues, s.norm) && !anyMatch(openCues, s.norm) {
			return true
		}
	}
	return false
}

// owner picks the owner of an action item among the speakers: for a
// request, a speaker named in it or the next other speaker (who answers
// it); for a commitment, the speaker; otherwise a named speaker or the
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
	}
	return cur
}

// namedSpeaker returns a speaker other than cur whose name (or a word of
// it of two or more letters) the sentence mentions.
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
			if strings.Contains(s.norm, lower) {
				return name
			}
			continue
		}
		if words[lower] || strings.Contains(" "+s.norm+" ", " "+lower+" ") {
			return name
		}
	}
	return ""
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

// dedupe drops items whose text repeats an earlier one's terms.
func dedupe[T any](xs []scored[T], text func(T) string) []scored[T] {
	var (
		out  []scored[T]
		seen []map[string]bool
	)
	for _, x := range xs {
		terms := termSet(text(x.item))
		dup := false
		for _, s := range seen {
			if jaccard(terms, s) >= 0.8 {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, x)
			seen = append(seen, terms)
		}
	}
	return out
}

// top keeps the n best items, in meeting order.
func top[T any](xs []scored[T], n int) []T {
	if len(xs) > n {
		slices.SortStableFunc(xs, func(a, b scored[T]) int { return cmp.Compare(b.score, a.score) })
		xs = xs[:n]
		slices.SortStableFunc(xs, func(a, b scored[T]) int { return cmp.Compare(a.seq, b.seq) })
	}
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = x.item
	}
	return out
}

func termSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range textutil.Terms(nil, s) {
		m[t] = true
	}
	return m
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
