package prdoc

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Cleaning for reading. Transcripts keep what was said, noise included;
// the text of a PR item is cleaned: transcription markers ({disfmarker},
// {vocalsound}, {gap}, <laugh>, [noise]) and fillers (um, uh, mm-hmm,
// 음, 어) are dropped, immediate repetitions ("it it it", "I think I
// think") kept once, false starts ("al also", "w- we") dropped, a
// parenthetical "you know" or "I mean" dropped, and the spacing of
// tokenised transcripts ("it 's", "don 't", "word ,") repaired.

var (
	cleanMarkupRE = regexp.MustCompile(`\{[A-Za-z_]+\}|<[A-Za-z_]+>|\[[A-Za-z_ ]+\]`)
	// Tokenised contractions and hyphens: "it 's", "do n't", "Mm - hmm".
	contractionRE = regexp.MustCompile(`(\w) (n't|'s|'re|'ve|'ll|'d|'m)\b`)
	hyphenRE      = regexp.MustCompile(`(\w) - (\w)`)
	spaceBeforeRE = regexp.MustCompile(`\s+([,.;:!?%)])`)
	parenRE       = regexp.MustCompile(`(?i)(^|[,;])\s*(you know|i mean)\s*(,|$|[.?!])`)
	// Punctuation left behind once words are dropped.
	emptyClauseRE = regexp.MustCompile(`([,;])(\s*[,;])+`)
	leadPunctRE   = regexp.MustCompile(`^[\s,;:.\-–—]+`)
	commaEndRE    = regexp.MustCompile(`[,;:]+\s*([.?!]|$)`)
)

// fillers are dropped wherever they stand alone.
var fillers = map[string]bool{
	"um": true, "umm": true, "uh": true, "uhh": true, "uh-huh": true, "er": true, "erm": true,
	"hmm": true, "hm": true, "mm": true, "mmm": true, "mm-hmm": true, "um-hmm": true,
	"음": true, "어": true, "으": true, "엄": true, "흠": true,
}

// shortWords are words of one or two letters that are words of their own,
// not false starts of the next one ("a an", "in insight", "so some").
var shortWords = map[string]bool{
	"a": true, "i": true, "an": true, "in": true, "on": true, "at": true, "to": true, "so": true,
	"we": true, "he": true, "it": true, "is": true, "as": true, "be": true, "or": true, "no": true,
	"go": true, "do": true, "me": true, "my": true, "us": true, "up": true, "of": true, "by": true,
	"if": true, "am": true, "oh": true, "ok": true, "hi": true,
}

// Clean returns text cleaned for reading (see above); it never adds words.
func Clean(text string) string {
	s := cleanMarkupRE.ReplaceAllString(text, " ")
	s = contractionRE.ReplaceAllString(s, "$1$2")
	s = hyphenRE.ReplaceAllString(s, "$1-$2")
	s = dropWords(strings.Fields(s))
	s = spaceBeforeRE.ReplaceAllString(s, "$1")
	for i := 0; i < 2; i++ {
		s = parenRE.ReplaceAllString(s, "$1$3")
	}
	s = emptyClauseRE.ReplaceAllString(s, "$1")
	s = commaEndRE.ReplaceAllString(s, "$1")
	s = leadPunctRE.ReplaceAllString(s, "")
	s = strings.TrimSpace(spaceRE.ReplaceAllString(s, " "))
	return upperFirst(s)
}

// dropWords drops fillers, false starts and immediate repetitions of one
// to three words from a sentence's words.
func dropWords(ws []string) string {
	out := make([]string, 0, len(ws))
	for i, w := range ws {
		bare := strings.ToLower(strings.Trim(w, ",.;:!?\"'"))
		switch {
		case fillers[bare]:
			// Keep the punctuation the filler carried ("um," → ",").
			if p := strings.TrimLeft(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-음어으엄흠"); p != "" {
				out = append(out, p)
			}
			continue
		case strings.HasSuffix(w, "-") && len(w) > 1 && i+1 < len(ws):
			continue // "w- we": a cut-off word
		case i+1 < len(ws) && falseStart(bare, strings.ToLower(ws[i+1])):
			continue
		}
		if n := len(out); n > 0 && strings.HasPrefix(bare, strings.ToLower(out[n-1])+"'") {
			out = out[:n-1] // "I I'll" once the repeat before it is gone
		}
		out = append(out, w)
		out = dropRepeat(out)
	}
	return strings.Join(out, " ")
}

// falseStart reports whether w is an abandoned start of next: a strict
// prefix of it that is not a short word of its own, or the word next
// contracts ("I I'll").
func falseStart(w, next string) bool {
	if w != "" && strings.HasPrefix(next, w+"'") {
		return true // "I I'll", "we we're"
	}
	if w == "" || utf8.RuneCountInString(w) > 2 || shortWords[w] || !isLetters(w) {
		return false
	}
	return len(next) > len(w) && strings.HasPrefix(next, w)
}

// dropRepeat removes the last n words of out when they repeat the n words
// before them, for n from 1 to 3, ignoring case and punctuation.
func dropRepeat(out []string) []string {
	for n := 1; n <= 3; n++ {
		if len(out) < 2*n {
			break
		}
		a, b := out[len(out)-2*n:len(out)-n], out[len(out)-n:]
		same := true
		for k := range a {
			if !sameWord(a[k], b[k]) {
				same = false
				break
			}
		}
		if same {
			return out[:len(out)-n]
		}
	}
	return out
}

func sameWord(a, b string) bool {
	a = strings.Trim(a, ",.;:!?\"'")
	b = strings.Trim(b, ",.;:!?\"'")
	if a == "" || !isLetters(a) {
		return false
	}
	return strings.EqualFold(a, b)
}

func isLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && r != '\'' && r != '-' {
			return false
		}
	}
	return s != ""
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
