package rouge

import "strings"

// Stem is the Porter stemmer as rouge-score runs it: NLTK's PorterStemmer
// in its default mode (NLTK_EXTENSIONS), which is Porter's 1980 algorithm
// with these departures:
//
//   - a small table of irregular forms is looked up first (sky, skies,
//     dying, lying, tying, news, inning(s), outing(s), canning(s), howe,
//     proceed, exceed, succeed);
//   - words of at most 2 letters are returned as they are;
//   - step 1a maps a 4-letter "-ies" to "-ie" (ties → tie), step 1b maps
//     "-ied" likewise (died → die; longer: spied → spi);
//   - the *o condition also holds for a 2-letter vowel–consonant stem;
//   - step 1c turns a final y into i only after a consonant that is not
//     the word's only other letter (happy → happi, enjoy → enjoy);
//   - step 2 uses "bli" → "ble" instead of "abli" → "able", applies
//     "alli" → "al" and goes on with step 2, and adds "fulli" → "ful" and
//     "logi" → "log" (the stem with its l must have m > 0).
//
// The word must be lowercase ASCII letters and digits, as rouge-score's
// tokeniser leaves it.
func Stem(word string) string {
	if s, ok := irregular[word]; ok {
		return s
	}
	if len(word) <= 2 {
		return word
	}
	w := step1a(word)
	w = step1b(w)
	w = step1c(w)
	w = step2(w)
	w = step3(w)
	w = step4(w)
	w = step5a(w)
	return step5b(w)
}

var irregular = map[string]string{
	"sky": "sky", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie", "news": "news",
	"innings": "inning", "inning": "inning", "outings": "outing", "outing": "outing",
	"cannings": "canning", "canning": "canning", "howe": "howe",
	"proceed": "proceed", "exceed": "exceed", "succeed": "succeed",
}

// consonant reports whether w[i] is a consonant: not a vowel, and a y
// only when it starts the word or follows a vowel.
func consonant(w string, i int) bool {
	switch w[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !consonant(w, i-1)
	}
	return true
}

// measure is m of [C](VC){m}[V]: the number of vowel-consonant joints.
func measure(w string) int {
	m := 0
	for i := 1; i < len(w); i++ {
		if consonant(w, i) && !consonant(w, i-1) {
			m++
		}
	}
	return m
}

func positive(stem string) bool { return measure(stem) > 0 }

func hasVowel(w string) bool {
	for i := range len(w) {
		if !consonant(w, i) {
			return true
		}
	}
	return false
}

func doubleConsonant(w string) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && consonant(w, n-1)
}

// cvc is the *o condition.
func cvc(w string) bool {
	n := len(w)
	if n >= 3 && consonant(w, n-3) && !consonant(w, n-2) && consonant(w, n-1) {
		c := w[n-1]
		return c != 'w' && c != 'x' && c != 'y'
	}
	return n == 2 && !consonant(w, 0) && consonant(w, 1)
}

// rule replaces suffix by repl when cond (nil: always) holds of the stem.
type rule struct {
	suffix, repl string
	cond         func(stem string) bool
}

// apply applies the first rule whose suffix w ends with; when its
// condition fails, w is returned unchanged (later rules are not tried).
func apply(w string, rules []rule) string {
	for _, r := range rules {
		if strings.HasSuffix(w, r.suffix) {
			stem := w[:len(w)-len(r.suffix)]
			if r.cond == nil || r.cond(stem) {
				return stem + r.repl
			}
			return w
		}
	}
	return w
}

func step1a(w string) string {
	if len(w) == 4 && strings.HasSuffix(w, "ies") {
		return w[:1] + "ie"
	}
	return apply(w, []rule{{"sses", "ss", nil}, {"ies", "i", nil}, {"ss", "ss", nil}, {"s", "", nil}})
}

func step1b(w string) string {
	if strings.HasSuffix(w, "ied") {
		if len(w) == 4 {
			return w[:1] + "ie"
		}
		return w[:len(w)-3] + "i"
	}
	if strings.HasSuffix(w, "eed") {
		if stem := w[:len(w)-3]; measure(stem) > 0 {
			return stem + "ee"
		}
		return w
	}
	var stem string
	switch {
	case strings.HasSuffix(w, "ed") && hasVowel(w[:len(w)-2]):
		stem = w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && hasVowel(w[:len(w)-3]):
		stem = w[:len(w)-3]
	default:
		return w
	}
	switch {
	case strings.HasSuffix(stem, "at"), strings.HasSuffix(stem, "bl"), strings.HasSuffix(stem, "iz"):
		return stem + "e"
	case doubleConsonant(stem):
		if c := stem[len(stem)-1]; c != 'l' && c != 's' && c != 'z' {
			return stem[:len(stem)-1]
		}
		return stem
	case measure(stem) == 1 && cvc(stem):
		return stem + "e"
	}
	return stem
}

func step1c(w string) string {
	n := len(w)
	if n > 2 && w[n-1] == 'y' && consonant(w, n-2) {
		return w[:n-1] + "i"
	}
	return w
}

var step2Rules = []rule{
	{"ational", "ate", positive}, {"tional", "tion", positive}, {"enci", "ence", positive},
	{"anci", "ance", positive}, {"izer", "ize", positive}, {"bli", "ble", positive},
	{"alli", "al", positive}, {"entli", "ent", positive}, {"eli", "e", positive},
	{"ousli", "ous", positive}, {"ization", "ize", positive}, {"ation", "ate", positive},
	{"ator", "ate", positive}, {"alism", "al", positive}, {"iveness", "ive", positive},
	{"fulness", "ful", positive}, {"ousness", "ous", positive}, {"aliti", "al", positive},
	{"iviti", "ive", positive}, {"biliti", "ble", positive}, {"fulli", "ful", positive},
	// "logi" → "log": the stem keeps its l for the measure.
	{"logi", "log", func(stem string) bool { return positive(stem + "l") }},
}

func step2(w string) string {
	if strings.HasSuffix(w, "alli") && positive(w[:len(w)-4]) {
		return step2(w[:len(w)-4] + "al")
	}
	return apply(w, step2Rules)
}

var step3Rules = []rule{
	{"icate", "ic", positive}, {"ative", "", positive}, {"alize", "al", positive},
	{"iciti", "ic", positive}, {"ical", "ic", positive}, {"ful", "", positive}, {"ness", "", positive},
}

func step3(w string) string { return apply(w, step3Rules) }

func measureAbove1(stem string) bool { return measure(stem) > 1 }

var step4Rules = []rule{
	{"al", "", measureAbove1}, {"ance", "", measureAbove1}, {"ence", "", measureAbove1},
	{"er", "", measureAbove1}, {"ic", "", measureAbove1}, {"able", "", measureAbove1},
	{"ible", "", measureAbove1}, {"ant", "", measureAbove1}, {"ement", "", measureAbove1},
	{"ment", "", measureAbove1}, {"ent", "", measureAbove1},
	{"ion", "", func(stem string) bool {
		return measure(stem) > 1 && (stem[len(stem)-1] == 's' || stem[len(stem)-1] == 't')
	}},
	{"ou", "", measureAbove1}, {"ism", "", measureAbove1}, {"ate", "", measureAbove1},
	{"iti", "", measureAbove1}, {"ous", "", measureAbove1}, {"ive", "", measureAbove1},
	{"ize", "", measureAbove1},
}

func step4(w string) string { return apply(w, step4Rules) }

func step5a(w string) string {
	if !strings.HasSuffix(w, "e") {
		return w
	}
	stem := w[:len(w)-1]
	if m := measure(stem); m > 1 || (m == 1 && !cvc(stem)) {
		return stem
	}
	return w
}

func step5b(w string) string {
	if strings.HasSuffix(w, "ll") && measure(w[:len(w)-1]) > 1 {
		return w[:len(w)-1]
	}
	return w
}
