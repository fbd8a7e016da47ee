package wake_test

import (
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// FuzzDetector feeds two fuzzed final segments of one speaker to a
// detector. A question has a word in it, a segment id triggers at most
// once, and a re-sent segment never triggers.
func FuzzDetector(f *testing.F) {
	f.Fuzz(func(t *testing.T, first, second string, gapMS uint16) {
		d := newDetector(t)
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
