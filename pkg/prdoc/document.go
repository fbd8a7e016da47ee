package prdoc

import (
	"strings"
)

// assemble puts a document together and proposes its memory updates.
func assemble(in Input, agenda []AgendaItem, it items, provider string) Document {
	doc := Document{
		Title:         title(in, agenda),
		Agenda:        nonNil(agenda),
		Decisions:     nonNil(it.decisions),
		ActionItems:   nonNil(it.actions),
		OpenQuestions: nonNil(it.questions),
		Provider:      provider,
	}
	doc.MemoryUpdates = ProposeMemoryUpdates(in, doc)
	return doc
}

// title is the meeting title (or its first agenda items) and its date.
func title(in Input, agenda []AgendaItem) string {
	name := strings.TrimSpace(in.MeetingTitle)
	if name == "" {
		var ts []string
		for _, a := range agenda[:min(len(agenda), 2)] {
			if a.Title != "" {
				ts = append(ts, a.Title)
			}
		}
		name = "Meeting"
		if len(ts) > 0 {
			name = strings.Join(ts, ", ")
		}
	}
	name = cutRunes(name, 200)
	if in.Date.IsZero() {
		return name
	}
	return name + " (" + in.Date.Format("2006-01-02") + ")"
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
