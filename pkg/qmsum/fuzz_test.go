package qmsum_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"github.com/mithub/mithub/pkg/qmsum"
)

// FuzzParse reads fuzzed QMSum meeting files. An accepted meeting has
// turns, every span lies inside them, and its utterances have unique ids,
// text, and increasing times.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := qmsum.Parse(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		n := len(m.Turns)
		if n == 0 {
			t.Fatal("accepted a meeting without turns")
		}
		check := func(what string, spans []qmsum.Span) {
			for _, s := range spans {
				if s.Start < 0 || s.Start > s.End || s.End >= n {
					t.Fatalf("%s span %+v outside %d turns", what, s, n)
				}
			}
		}
		for _, tp := range m.Topics {
			check("topic", tp.Spans)
		}
		for _, q := range m.SpecificQueries {
			check("query", q.Spans)
		}
		seen := map[string]bool{}
		var last int64 = -1
		for _, u := range qmsum.Utterances(m, "fz") {
			switch {
			case seen[u.SegmentID]:
				t.Fatalf("segment id %q twice", u.SegmentID)
			case strings.TrimSpace(u.Text) == "" || u.SpeakerID == "" || u.SpeakerName == "":
				t.Fatalf("utterance %+v", u)
			case u.StartMS <= last || u.EndMS <= u.StartMS:
				t.Fatalf("times %d..%d after %d", u.StartMS, u.EndMS, last)
			}
			seen[u.SegmentID] = true
			last = u.EndMS
		}
	})
}

// FuzzReadJSONL reads fuzzed JSONL utterance files: accepted utterances
// have unique ids, trimmed text and names, ordered times, a confidence in
// [0, 1] and a slug speaker id when none was given.
func FuzzReadJSONL(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		utts, err := qmsum.ReadJSONL(bytes.NewReader(data), "fz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") {
				t.Fatalf("error %q does not name its line", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, u := range utts {
			switch {
			case u.SegmentID == "" || seen[u.SegmentID]:
				t.Fatalf("segment id %q empty or repeated", u.SegmentID)
			case u.Text == "" || u.Text != strings.TrimSpace(u.Text) || u.SpeakerName == "" || u.SpeakerID == "":
				t.Fatalf("utterance %+v", u)
			case u.StartMS < 0 || u.EndMS < u.StartMS || u.Confidence < 0 || u.Confidence > 1:
				t.Fatalf("utterance %+v", u)
			}
			seen[u.SegmentID] = true
		}
	})
}

// FuzzSlug checks speaker slugs: lower-case letters and digits joined by
// single dashes, or "unknown".
func FuzzSlug(f *testing.F) {
	f.Fuzz(func(t *testing.T, name string) {
		s := qmsum.Slug(name)
		if s == "" || strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") || strings.Contains(s, "--") {
			t.Fatalf("Slug(%q) = %q", name, s)
		}
		for _, r := range s {
			if r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				t.Fatalf("Slug(%q) = %q holds %q", name, s, r)
			}
		}
		if qmsum.Slug(s) != s {
			t.Fatalf("Slug is not idempotent: %q → %q → %q", name, s, qmsum.Slug(s))
		}
	})
}
