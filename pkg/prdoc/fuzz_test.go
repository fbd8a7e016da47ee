package prdoc_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/prdoc"
)

const (
	meetingA = "7c9e6679-7425-40de-944b-e07cc1f90ae7"
	meetingB = "0b6e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
)

var markerRE = regexp.MustCompile(`<!-- /?mithub:meeting=[^>]* -->`)

// withoutMarkers removes section markers the way MergeSection does.
func withoutMarkers(s string) string {
	for {
		next := markerRE.ReplaceAllString(s, "")
		if next == s {
			return s
		}
		s = next
	}
}

// section returns the meeting's section of content, markers included, or "".
func section(content, meetingID string) string {
	begin := "<!-- mithub:meeting=" + meetingID + " -->"
	end := "<!-- /mithub:meeting=" + meetingID + " -->"
	i := strings.Index(content, begin)
	if i < 0 {
		return ""
	}
	j := strings.Index(content[i:], end)
	if j < 0 {
		return ""
	}
	return content[i : i+j+len(end)]
}

// FuzzMergeSection merges fuzzed meeting content into fuzzed memory-bank
// markdown. Merging is idempotent, keeps the meeting's content (without
// section markers) and another meeting's section as they were, and the
// overview is only filled when empty.
func FuzzMergeSection(f *testing.F) {
	f.Fuzz(func(t *testing.T, current, content, other string, overview bool) {
		category := membank.CategoryDecisions
		if overview {
			category = membank.CategoryOverview
		}
		withOther := prdoc.MergeSection(category, current, meetingB, other, 0)
		once := prdoc.MergeSection(category, withOther, meetingA, content, 0)
		twice := prdoc.MergeSection(category, once, meetingA, content, 0)
		if once != twice {
			t.Fatalf("merging twice changed the content:\n--- once\n%s\n--- twice\n%s", once, twice)
		}
		if overview {
			if strings.TrimSpace(withOther) != "" && once != withOther {
				t.Fatalf("a non-empty overview was replaced")
			}
			return
		}
		kept := section(withOther, meetingB)
		if kept == "" {
			t.Fatalf("meeting B's section is missing after its merge:\n%s", withOther)
		}
		// Hand-edited markers (nested or interleaved sections) may move
		// sections; content written only by merges keeps them apart.
		if got := section(once, meetingB); got != kept && !strings.Contains(current, "mithub:meeting=") {
			t.Fatalf("merging meeting A changed meeting B's section:\n--- before\n%s\n--- after\n%s", kept, got)
		}
		mine := section(once, meetingA)
		if mine == "" {
			t.Fatalf("meeting A's section is missing:\n%s", once)
		}
		for _, w := range strings.Fields(withoutMarkers(content)) {
			if !strings.Contains(mine, w) {
				t.Fatalf("meeting A's section lost %q of its content:\n%s", w, mine)
			}
		}
		// Bounded, the merge is still idempotent, keeps meeting A's whole
		// section and is never longer than the unbounded one.
		bounded := prdoc.MergeSection(category, withOther, meetingA, content, 256)
		if again := prdoc.MergeSection(category, bounded, meetingA, content, 256); again != bounded {
			t.Fatalf("bounded merge twice changed the content:\n--- once\n%s\n--- twice\n%s", bounded, again)
		}
		if section(bounded, meetingA) != mine || len(bounded) > len(once) {
			t.Fatalf("bounded merge lost meeting A's section or grew:\n--- unbounded\n%s\n--- bounded\n%s", once, bounded)
		}
		if utf8.ValidString(current) && utf8.ValidString(content) && utf8.ValidString(other) && !utf8.ValidString(once) {
			t.Fatal("merged valid UTF-8 into invalid UTF-8")
		}
	})
}

// FuzzLocalExtract runs the rule-based extractor (sentence splitting,
// Korean and English cues, due dates) over a fuzzed two-speaker meeting.
// Items point at real turns, owners are speakers, due dates are calendar
// days, texts are capped, and the Markdown renders.
func FuzzLocalExtract(f *testing.F) {
	ext := prdoc.NewLocal()
	date := time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, first, second, third string) {
		in := prdoc.Input{MeetingID: meetingA, MeetingTitle: "주간 회의", Date: date}
		for i, text := range []string{first, second, third} {
			in.Turns = append(in.Turns, prdoc.Turn{ID: int64(i + 1), Seq: i, Speaker: []string{"김민수", "Ann Lee", "김민수"}[i],
				Text: text, StartMS: int64(i) * 5000, EndMS: int64(i)*5000 + 4000})
		}
		doc, err := ext.Extract(context.Background(), in)
		if err != nil {
			t.Fatalf("Extract: %v", err)
		}
		seqOK := func(s int) bool { return s >= 0 && s < len(in.Turns) }
		for _, d := range doc.Decisions {
			if !seqOK(d.Seq) || d.Speaker != in.Turns[d.Seq].Speaker || utf8.RuneCountInString(d.Text) > prdoc.MaxItemRunes {
				t.Fatalf("decision %+v", d)
			}
		}
		for _, a := range doc.ActionItems {
			if !seqOK(a.Seq) || (a.Owner != "" && a.Owner != "김민수" && a.Owner != "Ann Lee") ||
				utf8.RuneCountInString(a.Text) > prdoc.MaxItemRunes {
				t.Fatalf("action item %+v", a)
			}
			if a.DueDate != "" {
				if _, err := time.Parse(time.DateOnly, a.DueDate); err != nil {
					t.Fatalf("action item due date %q: %v", a.DueDate, err)
				}
			}
		}
		for _, q := range doc.OpenQuestions {
			if !seqOK(q.Seq) || utf8.RuneCountInString(q.Text) > prdoc.MaxItemRunes {
				t.Fatalf("open question %+v", q)
			}
		}
		if md := prdoc.Markdown(doc); !strings.HasPrefix(md, "# ") {
			t.Fatalf("Markdown does not start with a title:\n%s", md)
		}
	})
}
