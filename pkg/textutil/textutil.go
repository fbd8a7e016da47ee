// Package textutil normalises Korean and English text into terms for
// lexical search: lowercased words of letters and digits, English stop
// words dropped, common Korean particles stripped from Hangul words, and
// Hangul spellings of English words read as the English word
// (loanwords).
package textutil

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/rouge"
)

// Terms appends the search terms of s to dst and returns it. A word is a
// run of letters, digits and combining marks, cut where Hangul meets
// letters of another script, so "sync는" and "API를" give "sync" and
// "api" (a particle or ending written onto a foreign word is dropped)
// and "David님이" gives "david"; digits stay with the letters they are
// written with ("3월", "q3").
func Terms(dst []string, s string) []string {
	start := -1
	afterLatin := false // the current word is Hangul written onto a foreign word
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := s[start:end]
		if !afterLatin || !attached[w] {
			if t := normalize(w); t != "" {
				dst = append(dst, t)
			}
		}
		start, afterLatin = -1, false
	}
	// The script of the current word's last letter: 0 before one, else
	// scriptHangul or scriptOther.
	prev := 0
	for i, r := range s {
		var letter, word bool
		if r < utf8.RuneSelf {
			letter = 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
			word = letter || '0' <= r && r <= '9'
		} else {
			letter = unicode.IsLetter(r)
			word = letter || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
		}
		if !word {
			flush(i)
			prev = 0
			continue
		}
		if letter {
			cur := scriptOther
			if r >= 0x1100 && unicode.Is(unicode.Hangul, r) {
				cur = scriptHangul
			}
			if start >= 0 && prev != 0 && cur != prev {
				flush(i)
				afterLatin = prev == scriptOther
			}
			prev = cur
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(s))
	return dst
}

// Scripts of letters, for cutting words where Hangul meets another
// script.
const (
	scriptHangul = 1 + iota
	scriptOther
)

// attached are the particles, copulas and honorifics that Korean writes
// onto a foreign word or name ("sync는", "API를", "iOS랑", "David님이",
// "blocker예요"): alone they carry nothing to search for.
var attached = set(strings.Join(particles, " ") + " 님 님이 님은 님도 님께서 님한테 님이랑 님과 님의 님을 씨 씨가 씨는 씨도 예요 이에요 이죠 죠 인데 이요 이야 야 이랑은 에서도 으로도 에게는 한테는 만큼 마다 이라서 라서 이라 라")

// Stemmed appends the search terms of s to dst as Terms does, with every
// English term of more than 3 letters Porter-stemmed as ROUGE stems it
// (rouge.Stem: "buttons" and "button" are both "button", "discussed" and
// "discussion" both "discuss"), and returns it. Korean terms are as
// Terms gives them (particles stripped). Terms and Stemmed give the same
// number of terms for a text.
func Stemmed(dst []string, s string) []string {
	n := len(dst)
	dst = Terms(dst, s)
	for i := n; i < len(dst); i++ {
		dst[i] = Stem(dst[i])
	}
	return dst
}

// Stem is the stem of one term as Stemmed makes it.
func Stem(t string) string {
	if len(t) <= 3 || t[0] >= utf8.RuneSelf {
		return t
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' {
			return t // rouge.Stem reads lowercase ASCII only
		}
	}
	return rouge.Stem(t)
}

func normalize(w string) string {
	w = strings.ToLower(w)
	if isHangulWord(w) {
		if en, ok := loanword(w); ok {
			return en
		}
		w = StripParticle(w)
		if utf8.RuneCountInString(w) < 1 || koreanStop[w] {
			return ""
		}
		return w
	}
	if len(w) < 2 && !unicode.IsDigit(rune(w[0])) || englishStop[w] {
		return ""
	}
	return w
}

// isHangulWord reports a word that ends in Hangul ("회의에서", "25일까지").
func isHangulWord(w string) bool {
	r, _ := utf8.DecodeLastRuneInString(w)
	return unicode.Is(unicode.Hangul, r)
}

// particles are Korean josa and endings stripped from the end of Hangul
// words, longest first.
var particles = []string{
	"에서는", "으로는", "에게서", "이라고", "이라는", "입니다", "습니다", "했어요", "해요",
	"에서", "으로", "에게", "한테", "까지", "부터", "처럼", "보다", "이랑", "라고", "라는", "하고", "이나", "이고", "이다", "에는", "에도", "와는", "과는", "하는", "해서", "했다", "한다", "합니다",
	"은", "는", "이", "가", "을", "를", "에", "의", "로", "와", "과", "도", "만", "요", "랑", "나", "다", "고",
}

// StripParticle removes one trailing particle from a Hangul word when at
// least one syllable remains.
func StripParticle(w string) string {
	n := utf8.RuneCountInString(w)
	for _, p := range particles {
		pn := utf8.RuneCountInString(p)
		if n > pn && strings.HasSuffix(w, p) {
			return w[:len(w)-len(p)]
		}
	}
	return w
}

var englishStop = set("a an and are as at be been but by can could did do does doing for from had has have he her here him his how i if in into is it its just me my no not of on or our out over so some such than that the their them then there these they this those to too up us very was we were what when where which while who why will with would you your yeah yes ok okay um uh mm hmm oh well like right gonna got get really know think mean sort kind also one two")

var koreanStop = set("그 저 이 것 수 등 및 더 좀 네 예 음 어 아 그래서 그리고 그런데 그럼 근데 저희 우리 제가 그거 이거 저거 뭐 있 없 하 되 같 거 님")

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// FoldPlural folds an English plural term to its singular by suffix
// ("parties" → "party", "buttons" → "button"); other terms are returned
// as they are.
func FoldPlural(t string) string {
	switch {
	case len(t) > 4 && strings.HasSuffix(t, "ies"):
		return t[:len(t)-3] + "y"
	case len(t) > 3 && strings.HasSuffix(t, "s") && !strings.HasSuffix(t, "ss"):
		return t[:len(t)-1]
	}
	return t
}

// SpokenWords is how long text takes to say, in words: a word counts
// one, a word with Hangul half a word per syllable (a Korean word of two
// syllables takes about as long to say as an English word and says about
// as much), rounded up.
func SpokenWords(text string) int {
	half := 0
	for _, f := range strings.Fields(text) {
		syl := 0
		for _, r := range f {
			if unicode.Is(unicode.Hangul, r) {
				syl++
			}
		}
		if syl > 0 {
			half += syl
		} else {
			half += 2
		}
	}
	return (half + 1) / 2
}
