package wake_test

import (
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/mithub/mithub/services/realtime-worker/internal/wake"
)

// FuzzMatcherFind runs the wake-word matcher of the default phrases over
// fuzzed text. A match names a configured phrase within the edit budget,
// its Rest is a part of the text that starts with a letter or digit, more
// text after a match never loses it, and every phrase followed by a
// question is found exactly.
func FuzzMatcherFind(f *testing.F) {
	m := wake.NewMatcher(phrases, 2)
	f.Fuzz(func(t *testing.T, text, more string) {
		got, ok := m.Find(text)
		if ok {
			switch {
			case got.Phrase < 0 || got.Phrase >= len(phrases):
				t.Fatalf("Find(%q) phrase %d", text, got.Phrase)
			case got.Distance < 0 || got.Distance > 2:
				t.Fatalf("Find(%q) distance %d beyond the budget", text, got.Distance)
			case !strings.Contains(norm.NFC.String(text), got.Rest):
				t.Fatalf("Find(%q) rest %q is not part of the text", text, got.Rest)
			}
			if r, _ := utf8.DecodeRuneInString(got.Rest); got.Rest != "" &&
				(r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsDigit(r))) {
				t.Fatalf("Find(%q) rest %q starts with %q", text, got.Rest, r)
			}
			if _, still := m.Find(text + " " + more); !still {
				t.Fatalf("Find(%q) matched but not with %q after it", text, more)
			}
		}
		for i, p := range phrases {
			got, ok := m.Find(p + " " + text)
			if !ok || got.Distance != 0 {
				t.Fatalf("Find(%q) = %+v, %v; want phrase %d at distance 0", p+" "+text, got, ok, i)
			}
		}
	})
}

// FuzzDetector feeds two fuzzed final segments of one speaker to a
// detector. A question has a word in it, a segment id triggers at most
// once, and a re-sent segment never triggers.
func FuzzDetector(f *testing.F) {
	f.Fuzz(func(t *testing.T, first, second string, gapMS uint16) {
		d := wake.NewDetector(wake.Config{Phrases: phrases, MaxEdits: 2, FollowUp: 8 * time.Second, Cooldown: 5 * time.Second})
		now := time.Unix(1_700_000_000, 0)
		asked := 0
		for i, seg := range []struct{ id, text string }{{"SG_1", first}, {"SG_2", second}, {"SG_1", first}, {"SG_2", second}} {
			at := now.Add(time.Duration(i) * time.Duration(gapMS) * time.Millisecond)
			q, ok := d.Observe(seg.id, "kim", "김민수", seg.text, at)
			if !ok {
				continue
			}
			asked++
			switch {
			case i >= 2:
				t.Fatalf("re-sent segment %s triggered %+v", seg.id, q)
			case utf8.RuneCountInString(q.Text) < 2 || strings.IndexFunc(q.Text, isWordRune) < 0:
				t.Fatalf("question without a word: %+v", q)
			case q.SegmentID != seg.id || q.SpeakerID != "kim" || !q.Heard.Equal(at):
				t.Fatalf("question %+v for segment %s", q, seg.id)
			}
		}
		if asked > 2 {
			t.Fatalf("%d questions from two segments", asked)
		}
	})
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}
