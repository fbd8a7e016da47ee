package transcript

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTextBytes is the longest text one stored segment may hold (the
// store's limit on transcripts.text).
const MaxTextBytes = 32 << 10

// Repairs are what Storable changed in a segment.
type Repairs struct {
	// Replaced counts the invalid UTF-8 sequences and NUL bytes replaced
	// with U+FFFD, over every text field.
	Replaced int
	// Parts is how many segments the text was split into (1: not split).
	Parts int
}

// Changed reports whether the segment was altered.
func (r Repairs) Changed() bool { return r.Replaced > 0 || r.Parts > 1 }

// Storable makes a heard segment storable without losing any of it:
// invalid UTF-8 and NUL bytes in its text fields become U+FFFD, and a text
// longer than MaxTextBytes is split on rune boundaries (at whitespace when
// there is some) into consecutive segments whose ids are the segment's id
// with "#1", "#2"… appended. The same segment always gives the same parts
// and ids, which keeps ingest idempotent; the parts' texts joined are the
// (repaired) text.
func Storable(seg Segment) ([]Segment, Repairs) {
	var r Repairs
	fix := func(s string) string {
		out, n := sanitize(s)
		r.Replaced += n
		return out
	}
	seg.ID = fix(seg.ID)
	seg.SpeakerID = fix(seg.SpeakerID)
	seg.SpeakerName = fix(seg.SpeakerName)
	seg.Text = fix(seg.Text)
	seg.Language = fix(seg.Language)
	texts := splitText(seg.Text, MaxTextBytes)
	r.Parts = len(texts)
	if len(texts) <= 1 {
		return []Segment{seg}, r
	}
	out := make([]Segment, len(texts))
	for i, t := range texts {
		p := seg
		p.ID = seg.ID + "#" + strconv.Itoa(i+1)
		p.Text = t
		out[i] = p
	}
	return out, r
}

// sanitize replaces each invalid UTF-8 sequence and each NUL byte with
// U+FFFD and returns how many it replaced.
func sanitize(s string) (string, int) {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	n := 0
	for i := 0; i < len(s); {
		c, size := utf8.DecodeRuneInString(s[i:])
		if (c == utf8.RuneError && size == 1) || c == 0 {
			b.WriteRune(utf8.RuneError)
			n++
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String(), n
}

// splitText cuts s into pieces of at most max bytes, each ending on a rune
// boundary; a piece ends after the last whitespace that fits when there is
// one in its second half, so words stay whole. Concatenated, the pieces
// are s.
func splitText(s string, max int) []string {
	if len(s) <= max {
		return []string{s}
	}
	var out []string
	for len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if ws := lastSpace(s[:cut]); ws >= cut/2 {
			cut = ws
		}
		if cut == 0 { // cannot happen for valid UTF-8 and max >= 4
			cut = max
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

// lastSpace returns the index just after the last whitespace rune of s, or
// -1.
func lastSpace(s string) int {
	for i := len(s); i > 0; {
		c, size := utf8.DecodeLastRuneInString(s[:i])
		if unicode.IsSpace(c) {
			return i
		}
		i -= size
	}
	return -1
}
