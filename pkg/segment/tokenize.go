package segment

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// word is one word of a text.
type word struct {
	// term is the normalised form used for features; "" for stop words
	// and fillers.
	term string
	// surface is the lowercased word as written, for display.
	surface string
	hangul  bool
	// acronym marks a word written in capitals ("API", "QA").
	acronym bool
	// predicate marks a Hangul word that lost a verb or adjective ending
	// or ends like one ("논의했습니다", "걸리나요"): a poor keyword.
	predicate bool
}

// content reports whether the word carries meaning (is not a stop word).
func (w word) content() bool { return w.term != "" }

// tokenize splits text into words: maximal runs of letters, digits and
// combining marks, cut where Hangul meets another script, with transcript
// markup ({disfmarker}, {vocalsound}, ...) removed.
//
// A one-syllable Hangul word written right after digits is a counter or
// unit ("3월", "25일", "5명"): it carries no subject, so it gets no term.
func tokenize(text string) []word {
	var words []word
	start, script := -1, 0
	afterDigit := false
	flush := func(end int) {
		if start >= 0 {
			w := newWord(text[start:end], script == scriptHangul)
			if afterDigit && w.hangul && utf8.RuneCountInString(w.term) == 1 {
				w.term = ""
			}
			words = append(words, w)
			c := text[end-1]
			next, _ := utf8.DecodeRuneInString(text[end:])
			afterDigit = '0' <= c && c <= '9' && scriptOf(next) == scriptHangul
		} else {
			afterDigit = false
		}
		start, script = -1, 0
	}
	for i := 0; i < len(text); {
		if text[i] == '{' {
			if n := markupLen(text[i:]); n > 0 {
				flush(i)
				i += n
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch s := scriptOf(r); {
		case s == scriptNone:
			flush(i)
		case s == scriptMark && start >= 0:
			// A combining mark extends the current word.
		case s == scriptMark:
		case start >= 0 && s != script:
			flush(i)
			start, script = i, s
		case start < 0:
			start, script = i, s
		}
		i += size
	}
	flush(len(text))
	return words
}

const (
	scriptNone = iota
	scriptHangul
	scriptOther
	scriptMark
)

func scriptOf(r rune) int {
	switch {
	case r < utf8.RuneSelf:
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return scriptOther
		}
		return scriptNone
	case unicode.Is(unicode.Hangul, r):
		return scriptHangul
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return scriptOther
	case unicode.Is(unicode.Mn, r):
		return scriptMark
	}
	return scriptNone
}

// markupLen returns the length of a transcript markup tag such as
// "{disfmarker}" at the start of s, or 0.
func markupLen(s string) int {
	const maxTag = 32
	for i := 1; i < len(s) && i < maxTag; i++ {
		switch c := s[i]; {
		case c == '}':
			if i == 1 {
				return 0
			}
			return i + 1
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_':
		default:
			return 0
		}
	}
	return 0
}

func newWord(raw string, hangul bool) word {
	surface := strings.ToLower(raw)
	w := word{surface: surface, hangul: hangul, acronym: isAcronym(raw)}
	switch {
	case hangul:
		w.term, w.predicate = koreanTerm(surface)
	case len(raw) == 2 && isLowerASCII(raw[0]) && isLowerASCII(raw[1]):
		// Two lowercase letters are mostly cut-off words in transcripts
		// ("th", "wh"); acronyms are written in capitals ("UI", "TV").
	default:
		w.term = latinTerm(surface)
	}
	return w
}

func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }

// isAcronym reports a word of two to six characters with no lowercase
// letter and at least two capitals: "API", "QA", "N95".
func isAcronym(raw string) bool {
	if len(raw) < 2 || len(raw) > 6 {
		return false
	}
	upper := 0
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case 'A' <= c && c <= 'Z':
			upper++
		case '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return upper >= 2
}

// latinTerm normalises a non-Hangul word: stop words, fillers and single
// letters give "", plurals are folded ("batteries" → "battery").
func latinTerm(w string) string {
	if utf8.RuneCountInString(w) < 2 || englishStop[w] {
		return ""
	}
	return foldPlural(w)
}

// foldPlural strips a regular English plural ending.
func foldPlural(w string) string {
	n := len(w)
	switch {
	case n < 4 || w[n-1] != 's':
		return w
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:n-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	}
	return w[:n-1]
}

// koreanTerm normalises a Hangul word: particles and verb endings are
// stripped (at most twice, "회의에서는" → "회의"), stop words give "".
// predicate reports a verb or adjective form, which names no topic.
func koreanTerm(w string) (term string, predicate bool) {
	if koreanStop[w] {
		return "", false
	}
	for range 2 {
		stem, suffix, ok := stripKoreanSuffix(w)
		if !ok {
			break
		}
		w = stem
		predicate = predicate || koreanEnding[suffix]
	}
	if koreanStop[w] {
		return "", false
	}
	for _, end := range []string{"다", "요", "죠", "까", "니"} {
		predicate = predicate || strings.HasSuffix(w, end)
	}
	// A conditional or a joined clause ("나오면", "보내고"): a noun of
	// three syllables or more seldom ends in 면 or 고 (화면, 광고 have
	// two).
	if utf8.RuneCountInString(w) >= 3 && (strings.HasSuffix(w, "면") || strings.HasSuffix(w, "고")) {
		predicate = true
	}
	return w, predicate
}

// stripKoreanSuffix removes the longest known particle or ending. A
// one-syllable suffix is stripped only from words of three or more
// syllables (so "회의", "결과", "중요" stay whole), except the object and
// topic markers 은 는 을 를, which are stripped from two-syllable words as
// well; a longer suffix needs at least one syllable left.
func stripKoreanSuffix(w string) (stem, suffix string, ok bool) {
	n := utf8.RuneCountInString(w)
	if n < 2 {
		return w, "", false
	}
	for _, suf := range koreanSuffixes {
		if !strings.HasSuffix(w, suf) {
			continue
		}
		sn := utf8.RuneCountInString(suf)
		switch {
		case sn >= n:
			continue
		case sn == 1 && n == 2 && !koreanTopicObject[suf]:
			continue
		}
		return w[:len(w)-len(suf)], suf, true
	}
	return w, "", false
}

// koreanSuffixes are particles (josa) and common verb/copula endings,
// longest first so the longest match wins.
var koreanSuffixes = sortedByLength(append(append([]string(nil), koreanParticles...), koreanEndings...))

// koreanParticles are josa.
var koreanParticles = []string{
	"에서는", "에서도", "에게서", "으로는", "으로도", "으로서", "으로써", "이라고", "이라는", "에게는",
	"한테는", "까지는", "부터는", "이랑은", "에서", "에게", "한테", "으로", "까지", "부터", "처럼",
	"보다", "만큼", "이랑", "라고", "라는", "이나", "에는", "에도", "와는", "과는", "께서", "마다",
	"조차", "밖에", "이라", "이든", "이며", "이요",
	"은", "는", "이", "가", "을", "를", "에", "의", "로", "와", "과", "도", "만", "랑", "나", "요",
}

// koreanEndings are verb, adjective and copula endings.
var koreanEndings = []string{
	"하겠습니다", "했습니다", "합니다", "입니다", "습니다", "됩니다", "했어요", "하셨어요", "했는데",
	"하는데", "할게요", "합시다", "이에요", "였어요", "해요", "했고", "하고", "하는", "하면", "해서",
	"해야", "했던", "인데", "예요", "이죠", "하죠", "했죠", "하기", "하자", "되는", "되고", "돼요",
	"되면", "됐어요", "됐습니다", "하다", "되다", "이다", "네요", "군요", "어요", "아요", "시다",
	"나요", "니다", "세요", "어서", "아서", "지만", "는데", "니까", "려고", "도록", "었어요", "았어요",
	"된", "할", "한", "했", "다", "죠",
}

// koreanEnding is koreanEndings as a set.
var koreanEnding = set(strings.Join(koreanEndings, " "))

// koreanTopicObject are the one-syllable markers stripped even from
// two-syllable words ("팀은" → "팀").
var koreanTopicObject = map[string]bool{"은": true, "는": true, "을": true, "를": true}

func sortedByLength(s []string) []string {
	out := append([]string(nil), s...)
	// Insertion sort by descending rune count keeps the list's order
	// among equal lengths, so the table reads naturally above.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && utf8.RuneCountInString(out[j]) > utf8.RuneCountInString(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// contentTerms returns the terms of the content words of text.
func contentTerms(text string) []string {
	var terms []string
	for _, w := range tokenize(text) {
		if w.content() {
			terms = append(terms, w.term)
		}
	}
	return terms
}
