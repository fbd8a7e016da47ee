package wake

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Matcher finds configured wake phrases in text.
type Matcher struct {
	phrases  [][]rune // normalized, without spaces
	maxWords []int    // words a phrase may span in the heard text
	maxEdits int
}

// NewMatcher compiles phrases. maxEdits bounds the edit distance between a
// phrase and what was heard; phrases of fewer than 8 letters allow at most
// one edit and phrases of fewer than 4 none.
func NewMatcher(phrases []string, maxEdits int) *Matcher {
	m := &Matcher{maxEdits: maxEdits}
	for _, p := range phrases {
		words := words(p)
		var key []rune
		for _, w := range words {
			key = append(key, []rune(w.norm)...)
		}
		if len(key) == 0 {
			continue
		}
		m.phrases = append(m.phrases, key)
		m.maxWords = append(m.maxWords, len(words)+2)
	}
	return m
}

// Match is a wake phrase found in a text.
type Match struct {
	// Phrase is the index of the configured phrase.
	Phrase int
	// Rest is the original text after the wake phrase, trimmed of spaces
	// and punctuation.
	Rest string
	// Distance is the edit distance to the phrase.
	Distance int
}

// Find returns the earliest wake phrase in text (the closest one when
// several start at the same word).
func (m *Matcher) Find(text string) (Match, bool) {
	ws := words(text)
	for i := range ws {
		best, found := Match{Distance: -1}, false
		for p, key := range m.phrases {
			limit := m.allowed(len(key))
			var heard []rune
			for j := i; j < len(ws) && j-i < m.maxWords[p]; j++ {
				heard = append(heard, []rune(ws[j].norm)...)
				if len(heard) > len(key)+limit {
					break
				}
				d := distance(heard, key)
				if d <= limit && (!found || d < best.Distance) {
					best = Match{Phrase: p, Rest: rest(text, ws[j].end), Distance: d}
					found = true
				}
			}
		}
		if found {
			return best, true
		}
	}
	return Match{}, false
}

// allowed is the edit budget of a phrase of n letters.
func (m *Matcher) allowed(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 8:
		return min(m.maxEdits, 1)
	}
	return m.maxEdits
}

// word is one word of a text: its normalized form and where it ends in the
// original.
type word struct {
	norm string
	end  int
}

// words splits text on spaces and punctuation into normalized words:
// Unicode NFC (Korean syllables composed), lower case, letters and digits
// only.
func words(text string) []word {
	text = norm.NFC.String(text)
	var (
		out []word
		cur strings.Builder
	)
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			cur.WriteRune(unicode.ToLower(r))
			continue
		}
		if cur.Len() > 0 {
			out = append(out, word{norm: cur.String(), end: i})
			cur.Reset()
		}
	}
	if cur.Len() > 0 {
		out = append(out, word{norm: cur.String(), end: len(text)})
	}
	return out
}

// rest returns text after byte offset end (of its NFC form) without
// leading spaces and punctuation.
func rest(text string, end int) string {
	s := norm.NFC.String(text)[end:]
	s = strings.TrimLeftFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r)) || r == utf8.RuneError
	})
	return strings.TrimSpace(s)
}

// distance is the Levenshtein distance between a and b.
func distance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
