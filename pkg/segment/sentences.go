package segment

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/cleantext"
)

// MaxSummaryRunes is the longest summary, in characters (runes).
const MaxSummaryRunes = 120

// cleanText makes transcript text readable: markup removed, hesitation
// sounds dropped, spaces before punctuation and inside English contractions
// closed ("It 's" → "It's"), runs of spaces collapsed.
func cleanText(text string) string {
	var out []string
	for _, f := range strings.Fields(stripMarkup(text)) {
		if hesitation[strings.ToLower(strings.Trim(f, ",."))] && !strings.HasSuffix(f, ".") {
			continue
		}
		if len(out) > 0 && strings.EqualFold(f, out[len(out)-1]) && !attachesLeft(f) {
			// A stutter: "the the" → "the".
			continue
		}
		if len(out) > 0 && attachesLeft(f) {
			if prev := out[len(out)-1]; !(len(f) == 1 && strings.ContainsAny(prev[len(prev)-1:], ",.?!")) {
				out[len(out)-1] += f
			}
			continue
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}

// hesitation sounds removed from displayed text.
var hesitation = set(`um umm uh uhh uhm erm hmm hm mm mmm`)

// attachesLeft reports whether a field belongs to the previous one:
// punctuation and English clitics that the transcript separated.
func attachesLeft(f string) bool {
	switch f {
	case ",", ".", "?", "!", ";", ":", "'s", "'re", "'ve", "'ll", "'d", "'m", "n't", "...", "…":
		return true
	}
	return false
}

// stripMarkup removes {markup} tags.
func stripMarkup(text string) string {
	if !strings.Contains(text, "{") {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		if text[i] == '{' {
			if n := markupLen(text[i:]); n > 0 {
				b.WriteByte(' ')
				i += n
				continue
			}
		}
		b.WriteByte(text[i])
		i++
	}
	return b.String()
}

// splitSentences splits cleaned text after . ? ! 。 and … when followed by
// a space or the end, keeping the punctuation.
func splitSentences(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		switch r {
		case '.', '?', '!', '。', '…', '？', '！':
		default:
			continue
		}
		next := i + utf8.RuneLen(r)
		if next < len(text) && text[next] != ' ' {
			continue
		}
		if s := strings.TrimSpace(text[start:next]); s != "" {
			out = append(out, s)
		}
		start = next
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// leadingFiller are words dropped from the start of a summary sentence.
var leadingFiller = set(`so and but well yeah yes ok okay oh ah alright right um uh like anyway then
	음 어 그 네 예 아 자 그리고 그래서 그럼 근데 그런데 이제 일단`)

// tidySentence drops leading fillers and stray punctuation and capitalises
// the first letter.
func tidySentence(s string) string {
	for {
		s = strings.TrimLeft(s, " ,.;:-–—!?")
		f, rest, ok := strings.Cut(s, " ")
		if !ok || !leadingFiller[strings.ToLower(strings.TrimRight(f, ",.!?"))] || rest == "" {
			break
		}
		if next, _, _ := strings.Cut(rest, " "); f == "네" && cleantext.KoreanCounter(strings.TrimRight(next, ",.!?")) {
			break // "네 번째": four
		}
		s = rest
	}
	r, size := utf8.DecodeRuneInString(s)
	if unicode.IsLower(r) {
		s = string(unicode.ToUpper(r)) + s[size:]
	}
	return s
}

// trimRunes shortens s to at most maxRunes characters, cutting at the last
// word boundary that fits and ending with "…"; a single over-long word is
// cut mid-word.
func trimRunes(s string, maxRunes int) string {
	if utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	// Keep maxRunes-1 runes to leave room for the ellipsis.
	cut, n := 0, 0
	for i := range s {
		if n == maxRunes-1 {
			cut = i
			break
		}
		n++
	}
	head := s[:cut]
	if next, _ := utf8.DecodeRuneInString(s[cut:]); next != ' ' {
		if sp := strings.LastIndexByte(head, ' '); sp > 0 {
			head = head[:sp]
		}
	}
	head = strings.TrimRight(head, " ,;:-–—")
	return head + "…"
}
