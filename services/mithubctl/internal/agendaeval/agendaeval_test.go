package agendaeval_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/services/mithubctl/internal/agendaeval"
)

func TestKeywordsFoldPluralsAndDropStopWords(t *testing.T) {
	tests := []struct {
		give string
		want string
	}{
		{"Battery design of the remote controls", "battery design remote control"},
		{"Discussion of the user interfaces and batteries", "discussion user interface battery"},
		{"예산 검토와 일정", "예산 검토 일정"},
	}
	for _, tt := range tests {
		if got := strings.Join(agendaeval.Keywords(tt.give), " "); got != tt.want {
			t.Errorf("Keywords(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

// One real meeting through the whole local pipeline: the agenda covers
// every turn, and the report's counts agree with its topics.
func TestRunOnAQMSumMeeting(t *testing.T) {
	dir := qmsumtest.Dir(t)
	rep, err := agendaeval.Run(context.Background(), filepath.Join(dir, "val"), agendaeval.Options{Meetings: []string{"ES2006a"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := qmsum.Load(filepath.Join(dir, "val", "ES2006a.json"))
	if err != nil {
		t.Fatal(err)
	}
	in, doc, _, err := agendaeval.Build(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	next := 0
	for _, a := range doc.Agenda {
		if a.StartSeq != next {
			t.Fatalf("agenda item starts at %d, want %d", a.StartSeq, next)
		}
		next = a.EndSeq + 1
	}
	if next != len(in.Turns) {
		t.Errorf("agenda ends at %d of %d turns", next, len(in.Turns))
	}
	got := rep.Meetings[0]
	if len(got.Topics) != len(m.Topics) || got.Matched() > len(got.Topics) {
		t.Errorf("report: %d topics, %d matched; meeting has %d", len(got.Topics), got.Matched(), len(m.Topics))
	}
	for _, tr := range got.Topics {
		if tr.Matched != (len(tr.Shared) >= 1) {
			t.Errorf("topic %q matched %v with shared %v", tr.Topic, tr.Matched, tr.Shared)
		}
	}
	// The agenda on the L1 topics first, then the same items titled
	// without the heading words, then the baselines; the even split has
	// at least one item per annotated topic, the whole-meeting topic
	// fewer items than that (its sub-items only).
	runs := got.AgendaRuns
	if len(runs) != 4 || runs[0].Name != agendaeval.AgendaL1 || runs[0].Items != len(doc.Agenda) || runs[0].Matched != got.Matched() {
		t.Fatalf("agenda runs %+v, want L1's first with %d items and %d matched", runs, len(doc.Agenda), got.Matched())
	}
	if runs[1].Name != agendaeval.AgendaPlain || runs[1].Items != runs[0].Items || runs[1].Placed != runs[0].Placed {
		t.Errorf("plain headings: %+v, want the items of %+v", runs[1], runs[0])
	}
	if runs[2].Name != agendaeval.AgendaEven || runs[2].Items < len(m.Topics) {
		t.Errorf("even split: %+v, want at least %d items", runs[2], len(m.Topics))
	}
	if runs[3].Name != agendaeval.AgendaWhole || runs[3].Items < 1 || runs[3].Items >= runs[2].Items {
		t.Errorf("one topic: %+v beside the even split's %d items", runs[3], runs[2].Items)
	}
	for _, r := range runs {
		if r.Matched > len(m.Topics) || r.Titled > r.Placed || r.Placed > r.Items {
			t.Errorf("%s: %d items, %d placed, %d titled, %d of %d topics matched", r.Name, r.Items, r.Placed, r.Titled, r.Matched, len(m.Topics))
		}
	}
	var buf bytes.Buffer
	rep.Markdown(&buf)
	for _, want := range []string{"Agenda coverage:", "| " + agendaeval.AgendaEven + " | ", "titles naming their topic"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
}
