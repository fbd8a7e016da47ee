package prdoc

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/errdefs"
	"github.com/mithub/mithub/pkg/membank"
)

// lessonCues mark a sentence that states a lesson for next time.
var lessonCues = compile(
	`\b(lesson|lessons learned|we learned|next time|should have|shouldn't have|in hindsight|retrospective)\b`,
	`(교훈|배웠|배운\s?점|다음에는|다음번에는|했어야|회고)`,
)

// maxLessons bounds the lessons one meeting proposes.
const maxLessons = 10

// ProposeMemoryUpdates turns a document into proposed memory-bank
// content: the meeting's summary (01-summary), its action items and open
// questions (02-progress), its decisions as ledger lines with the meeting
// and its date (03-decisions), lessons stated in the meeting (04-lessons)
// and, for a project without an overview yet, the meeting's main topics
// (00-project-overview). Categories with nothing to say are left out.
func ProposeMemoryUpdates(in Input, d Document) []MemoryUpdate {
	head := meetingLabel(in)
	var out []MemoryUpdate
	add := func(cat string, lines []string) {
		if len(lines) > 0 {
			out = append(out, MemoryUpdate{Category: cat, Content: strings.Join(lines, "\n") + "\n"})
		}
	}

	var kws []string
	overview := []string{}
	for _, a := range d.Agenda {
		kws = append(kws, a.Keywords...)
	}
	if kws = topKeywords(kws, 12); len(kws) > 0 {
		overview = append(overview, "Main topics: "+inline(strings.Join(kws, ", ")))
	}
	add(membank.CategoryOverview, overview)

	var summary []string
	if len(d.Agenda) > 0 {
		summary = append(summary, "### "+head)
		for _, a := range d.Agenda {
			line := "- **" + inline(a.Title) + "**"
			if a.Summary != "" {
				line += ": " + inline(a.Summary)
			}
			summary = append(summary, line)
		}
	}
	add(membank.CategorySummary, summary)

	var progress []string
	if len(d.ActionItems)+len(d.OpenQuestions) > 0 {
		progress = append(progress, "### "+head)
		for _, a := range d.ActionItems {
			owner := a.Owner
			if owner == "" {
				owner = "unassigned"
			}
			line := "- [ ] " + inline(owner) + ": " + inline(a.Text)
			if due := dueText(a); due != "" {
				line += " (due " + inline(due) + ")"
			}
			progress = append(progress, line)
		}
		for _, q := range d.OpenQuestions {
			progress = append(progress, "- Open question: "+inline(q.Text))
		}
	}
	add(membank.CategoryProgress, progress)

	var ledger []string
	for _, x := range d.Decisions {
		line := "- " + head + ": " + inline(x.Text)
		if x.Speaker != "" {
			line += " (" + inline(x.Speaker) + ")"
		}
		ledger = append(ledger, line)
	}
	add(membank.CategoryDecisions, ledger)

	lessons := in.lessons
	if lessons == nil {
		ls := newLessonSink(head)
		for _, t := range in.Turns {
			ls.turn(t)
		}
		lessons = ls.lines
	}
	add(membank.CategoryLessons, lessons)
	return out
}

// lessonSink collects the first maxLessons sentences that state a lesson.
type lessonSink struct {
	head  string
	lines []string
}

func newLessonSink(head string) *lessonSink { return &lessonSink{head: head, lines: []string{}} }

func (l *lessonSink) turn(t Turn) {
	if len(l.lines) >= maxLessons {
		return
	}
	for _, s := range sentences(t.Text) {
		if len(l.lines) < maxLessons && s.substantive() && anyMatch(lessonCues, s.norm) {
			l.lines = append(l.lines, "- "+l.head+": "+inline(cutRunes(s.text, MaxItemRunes)))
		}
	}
}

// meetingLabel is "YYYY-MM-DD · title" for ledger lines.
func meetingLabel(in Input) string {
	name := strings.TrimSpace(in.MeetingTitle)
	if name == "" {
		name = "meeting " + in.MeetingID
	}
	name = inline(cutRunes(name, 120))
	if in.Date.IsZero() {
		return name
	}
	return in.Date.Format("2006-01-02") + " · " + name
}

// topKeywords returns the n keywords named most often, first-seen order on
// ties.
func topKeywords(kws []string, n int) []string {
	count := map[string]int{}
	var order []string
	for _, k := range kws {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	slices.SortStableFunc(order, func(a, b string) int { return count[b] - count[a] })
	return order[:min(n, len(order))]
}

// Section markers delimit one meeting's part of a category, so merging the
// same meeting again replaces its part instead of adding a copy.
func sectionMarkers(meetingID string) (begin, end string) {
	return "<!-- mithub:meeting=" + meetingID + " -->", "<!-- /mithub:meeting=" + meetingID + " -->"
}

// DefaultMaxBytes is the default bound of the meeting sections one
// memory-bank category keeps (MITHUB_MEMORY_BANK_MAX_BYTES).
const DefaultMaxBytes = 16 << 10

// MergeSection merges one meeting's content into a category's current
// content. The overview is only filled when it is empty; every other
// category keeps one section per meeting: an existing section of the
// meeting is replaced in place, a new one is appended, so the decisions
// ledger grows in meeting order and merging twice changes nothing.
//
// When the result is longer than maxBytes (maxBytes > 0), the oldest
// sections of other meetings are dropped until it fits or none is left:
// a category holds the recent meetings, and each meeting's full record
// stays in its PR and its project status. Text outside meeting sections
// (written by hand) is never dropped.
//
// Section markers inside content are dropped, so content cannot end its
// own section early; a begin marker of the meeting without its end marker
// (content edited by hand) is dropped before the section is appended.
func MergeSection(category, current, meetingID, content string, maxBytes int) string {
	content = strings.TrimSpace(dropMarkers(content))
	if category == membank.CategoryOverview {
		if strings.TrimSpace(current) != "" {
			return current
		}
		return content + "\n"
	}
	return trimSections(appendSection(current, meetingID, content), meetingID, maxBytes)
}

func appendSection(current, meetingID, content string) string {
	begin, end := sectionMarkers(meetingID)
	section := begin + "\n" + content + "\n" + end + "\n"
	if i := strings.Index(current, begin); i >= 0 {
		if j := strings.Index(current[i:], end); j >= 0 {
			rest := strings.TrimPrefix(current[i+j+len(end):], "\n")
			return current[:i] + section + rest
		}
		for strings.Contains(current, begin) {
			current = strings.ReplaceAll(strings.ReplaceAll(current, begin+"\n", ""), begin, "")
		}
	}
	if current != "" && !strings.HasSuffix(current, "\n\n") {
		if !strings.HasSuffix(current, "\n") {
			current += "\n"
		}
		current += "\n"
	}
	return current + section
}

// sectionBegin starts every meeting's begin marker.
const sectionBegin = "<!-- mithub:meeting="

// trimSections drops the oldest complete sections of meetings other than
// keep, each with the blank line after it, while s is longer than
// maxBytes.
func trimSections(s, keep string, maxBytes int) string {
	if maxBytes <= 0 || len(s) <= maxBytes {
		return s
	}
	var b strings.Builder
	over := len(s) - maxBytes
	at := 0 // s[:at] is decided: written to b or dropped
	for over > 0 {
		i := strings.Index(s[at:], sectionBegin)
		if i < 0 {
			break
		}
		i += at
		idEnd := strings.Index(s[i+len(sectionBegin):], " -->")
		if idEnd < 0 {
			break
		}
		id := s[i+len(sectionBegin) : i+len(sectionBegin)+idEnd]
		_, end := sectionMarkers(id)
		j := strings.Index(s[i:], end)
		if j < 0 || id == keep || strings.ContainsAny(id, "\n") ||
			strings.Contains(s[i+len(sectionBegin):i+j], sectionBegin) {
			// Not a section that can go (unclosed, the kept meeting's, or
			// holding another's marker): keep it and look further on.
			b.WriteString(s[at : i+len(sectionBegin)])
			at = i + len(sectionBegin)
			continue
		}
		stop := i + j + len(end)
		for k := 0; k < 2 && stop < len(s) && s[stop] == '\n'; k++ {
			stop++
		}
		b.WriteString(s[at:i])
		over -= stop - i
		at = stop
	}
	if at == 0 {
		return s
	}
	b.WriteString(s[at:])
	return b.String()
}

// Merge applies updates to the current contents of their categories for
// one meeting and returns the new contents, each category bounded as
// MergeSection says.
func Merge(current map[string]string, meetingID string, updates []MemoryUpdate, maxBytes int) (map[string]string, error) {
	next := make(map[string]string, len(updates))
	for _, u := range updates {
		if !membank.IsCategory(u.Category) {
			return nil, fmt.Errorf("%w: memory update category %q", errdefs.ErrInvalid, u.Category)
		}
		cur, ok := next[u.Category]
		if !ok {
			cur = current[u.Category]
		}
		next[u.Category] = MergeSection(u.Category, cur, meetingID, u.Content, maxBytes)
	}
	return next, nil
}

// Categories lists the distinct categories of updates.
func Categories(updates []MemoryUpdate) []string {
	var out []string
	for _, u := range updates {
		if !slices.Contains(out, u.Category) {
			out = append(out, u.Category)
		}
	}
	return out
}

// StatusMarkdown is the project status as of one meeting: what it
// decided, who does what by when, and what is still open.
func StatusMarkdown(in Input, d Document, at time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Status after %s\n\n", meetingLabel(in))
	fmt.Fprintf(&b, "_Updated %s._\n\n", at.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "Topics: %d · decisions: %d · action items: %d · open questions: %d\n",
		len(d.Agenda), len(d.Decisions), len(d.ActionItems), len(d.OpenQuestions))
	if len(d.Decisions) > 0 {
		b.WriteString("\n## Decisions\n\n")
		for _, x := range d.Decisions {
			fmt.Fprintf(&b, "- %s\n", inline(x.Text))
		}
	}
	if len(d.ActionItems) > 0 {
		b.WriteString("\n## Action items\n\n")
		for _, a := range d.ActionItems {
			owner := a.Owner
			if owner == "" {
				owner = "unassigned"
			}
			fmt.Fprintf(&b, "- [ ] %s: %s", inline(owner), inline(a.Text))
			if due := dueText(a); due != "" {
				fmt.Fprintf(&b, " (due %s)", inline(due))
			}
			b.WriteString("\n")
		}
	}
	if len(d.OpenQuestions) > 0 {
		b.WriteString("\n## Open questions\n\n")
		for _, q := range d.OpenQuestions {
			fmt.Fprintf(&b, "- %s\n", inline(q.Text))
		}
	}
	return b.String()
}

var (
	markerRE       = regexp.MustCompile(`(?m)^<!-- /?mithub:meeting=[^>]* -->\n?`)
	inlineMarkerRE = regexp.MustCompile(`<!-- /?mithub:meeting=[^>]* -->`)
)

// dropMarkers removes every section marker from s, also those that
// removing another one puts together.
func dropMarkers(s string) string {
	for {
		next := inlineMarkerRE.ReplaceAllString(s, "")
		if next == s {
			return s
		}
		s = next
	}
}

// StripMarkers removes the section markers from memory-bank content.
func StripMarkers(s string) string { return markerRE.ReplaceAllString(s, "") }
