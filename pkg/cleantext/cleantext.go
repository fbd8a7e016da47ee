// Package cleantext makes transcript text readable: it removes what a
// transcript keeps for fidelity but a reader does not need, and splits
// the result into sentences. It never changes what is stored; callers
// clean a copy for display.
//
// Clean removes, in this order:
//
//   - annotation markers in braces or angle brackets: QMSum's
//     {disfmarker}, {vocalsound}, {gap}, {pause}, {comment},
//     {nonvocalsound} and the like;
//   - the spacing of tokenised transcripts: "it 's" → "it's", `" x "` → `"x"`,
//     "do n't" → "don't", "word ," → "word,", "mm - hmm" → "mm-hmm";
//   - fillers and backchannels standing alone: um, uh, erm, hmm, mm,
//     mm-hmm, uh-huh (English), 음, 어, 으, 아, 음음, 어어 (Korean), with
//     the comma that followed them;
//   - false starts: a fragment cut with a hyphen ("wh-", "th-"), or a
//     word that is the start of the next one ("S so", "compi compiling",
//     "그러 그러니까"), except real short words (a, I, in, so, ...), or
//     the word again with a clitic ("it it's");
//   - immediate repetitions of a word or of a run of two or three words
//     ("the the", "in the in the", "그 그"), compared without case and
//     punctuation; the last copy stays (numbers are not repetitions:
//     "5 5" stays);
//   - "you know" and "I mean" set off by commas ("there'll be, you know,
//     M-one O seven").
//
// and then tidies commas and spaces and capitalises each sentence's first
// letter.
package cleantext

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	commasRE = regexp.MustCompile(`,(\s*,)+`)
	// A comma or semicolon right before a sentence end, or leading.
	commaEndRE   = regexp.MustCompile(`[,;:]\s*([.?!])`)
	leadCommaRE  = regexp.MustCompile(`^[\s,;:.]+`)
	emptySentRE  = regexp.MustCompile(`([.?!])\s*[,;:]\s*`)
	doubleStopRE = regexp.MustCompile(`\.(\s*\.)+`)
)

var fillers = map[string]bool{
	"um": true, "umm": true, "uh": true, "uhh": true, "uhm": true, "erm": true, "er": true, "hmm": true,
	"hm": true, "mm": true, "mmm": true, "mm-hmm": true, "mhm": true, "uh-huh": true, "uh-hmm": true,
	"eh": true, "ah": true, "oh": true,
	"음": true, "어": true, "으": true, "아": true, "음음": true, "어어": true, "음…": true, "어…": true,
}

// shortWords are real words that may begin the next word without being a
// false start of it.
var shortWords = map[string]bool{
	"a": true, "i": true, "an": true, "in": true, "on": true, "at": true, "to": true, "so": true,
	"no": true, "we": true, "he": true, "be": true, "it": true, "is": true, "of": true, "or": true,
	"as": true, "do": true, "go": true, "me": true, "my": true, "us": true, "up": true, "if": true,
	"by": true, "the": true, "and": true, "for": true, "you": true, "are": true, "can": true, "all": true,
	"not": true, "out": true, "one": true, "our": true, "any": true, "but": true, "how": true, "now": true,
	"see": true, "some": true, "with": true, "what": true, "when": true, "this": true, "that": true,
	"there": true, "they": true, "them": true, "then": true, "here": true, "have": true, "form": true,
	"use": true, "over": true, "under": true, "work": true, "make": true, "know": true, "call": true,
	"나": true, "저": true, "이": true, "그": false,
}

// token is a word with its punctuation; core is the word, lowercased,
// without surrounding punctuation.
type token struct {
	text, core string
}

func coreOf(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) && r != '-' || unicode.IsSymbol(r) })
	s = strings.Trim(s, "\"'")
	return strings.ToLower(s)
}

// endsSentence reports whether a token closes a sentence.
func endsSentence(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s, "\"')"))
	return r == '.' || r == '?' || r == '!' || r == '…'
}

// trailing returns the punctuation a token ends with.
func trailing(s string) string {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsPunct(r) || r == '-' {
			break
		}
		i -= size
	}
	return s[i:]
}

// Clean returns text made readable (see the package documentation).
func Clean(text string) string {
	fields := joinPieces(strings.Fields(removeMarkers(text)))
	toks := make([]token, 0, len(fields))
	for _, f := range fields {
		toks = append(toks, token{text: f, core: coreOf(f)})
	}
	toks = dropFillers(toks)
	toks = dropFalseStarts(toks)
	toks = dropRepeats(toks)
	// Once repeats are gone a false start may stand before its word
	// ("I I I'll" → "I I'll").
	toks = dropFalseStarts(toks)
	toks = dropAsides(toks)
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return tidy(b.String())
}

func dropFillers(toks []token) []token {
	out := toks[:0:0]
	for _, t := range toks {
		if !fillers[t.core] && !fillers[strings.TrimRight(t.core, "-")] {
			out = append(out, t)
			continue
		}
		// A filler that ended a sentence hands the stop to the word before.
		if endsSentence(t.text) && len(out) > 0 && !endsSentence(out[len(out)-1].text) {
			p := &out[len(out)-1]
			p.text = strings.TrimRight(p.text, ",;:") + trailing(t.text)
		}
	}
	return out
}

func dropFalseStarts(toks []token) []token {
	out := toks[:0:0]
	for i, t := range toks {
		cut := strings.HasSuffix(t.core, "-") && len(t.core) > 1 && !strings.ContainsAny(t.core, "0123456789")
		if !cut && i+1 < len(toks) && t.core != "" && trailing(t.text) == "" {
			next := toks[i+1].core
			// "it it's": the word again with a clitic; "S so": a start.
			cut = strings.HasPrefix(next, t.core+"'") ||
				!shortWords[t.core] && len(next) > len(t.core) && strings.HasPrefix(next, t.core)
		}
		if cut {
			if endsSentence(t.text) && len(out) > 0 {
				out[len(out)-1].text += trailing(t.text)
			}
			continue
		}
		out = append(out, t)
	}
	return out
}

// dropRepeats drops the first copy of a run of 1–3 words that is repeated
// right after itself; a copy that ends a sentence is not a repetition.
func dropRepeats(toks []token) []token {
	for n := 3; n >= 1; n-- {
		out := toks[:0:0]
		for i := 0; i < len(toks); {
			if i+2*n <= len(toks) && repeated(toks[i:i+n], toks[i+n:i+2*n]) {
				i += n
				continue
			}
			out = append(out, toks[i])
			i++
		}
		toks = out
	}
	return toks
}

func repeated(a, b []token) bool {
	for k := range a {
		if a[k].core == "" || a[k].core != b[k].core || digits(a[k].core) {
			return false
		}
	}
	return !endsSentence(a[len(a)-1].text)
}

func digits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

// asides are phrases dropped when set off by commas.
var asides = [][2]string{{"you", "know"}, {"i", "mean"}}

// dropAsides drops an aside that follows a comma (or starts the text)
// and ends with a comma or a sentence end; the punctuation after it
// stays on the word before it.
func dropAsides(toks []token) []token {
	out := toks[:0:0]
	for i := 0; i < len(toks); {
		if tail, ok := asideAt(toks, i); ok {
			if tail != "," && len(out) > 0 {
				// "…be, you know." → "…be."
				last := &out[len(out)-1]
				last.text = strings.TrimSuffix(last.text, ",") + tail
			}
			i += 2
			continue
		}
		out = append(out, toks[i])
		i++
	}
	return out
}

// asideAt reports whether toks[i:i+2] is an aside set off by commas, and
// the punctuation that ends it.
func asideAt(toks []token, i int) (string, bool) {
	if i+1 >= len(toks) || i > 0 && !strings.HasSuffix(toks[i-1].text, ",") {
		return "", false
	}
	end := toks[i+1].text
	tail := end[len(strings.TrimRight(end, ",.?!")):]
	if tail == "" {
		return "", false
	}
	for _, a := range asides {
		if toks[i].core == a[0] && toks[i+1].core == a[1] {
			return tail, true
		}
	}
	return "", false
}

// removeMarkers replaces annotation markers ({...} of at most 40 bytes,
// <letters>) with spaces.
func removeMarkers(s string) string {
	if !strings.ContainsAny(s, "{<") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '{' || c == '<' {
			closer := byte('}')
			if c == '<' {
				closer = '>'
			}
			if j := strings.IndexByte(s[i+1:min(len(s), i+42)], closer); j >= 0 && marker(s[i+1:i+1+j], c == '<') {
				b.WriteByte(' ')
				i += j + 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func marker(inner string, angle bool) bool {
	if angle && inner == "" {
		return false
	}
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		if c == '{' || c == '<' || angle && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ' ') {
			return false
		}
	}
	return true
}

var clitics = map[string]bool{"'s": true, "'re": true, "'ve": true, "'ll": true, "'d": true, "'m": true, "n't": true}

// joinPieces undoes the spacing of tokenised transcripts: clitics and
// punctuation join the word before ("it 's" → "it's", "word ," →
// "word,"), "a - b" becomes "a-b", and a quote mark joins the quoted
// words. A lone "@" or "@@", the mark of a word nobody could make out
// ("supposed to @ @ about features"), is dropped.
func joinPieces(fs []string) []string {
	out := fs[:0:0]
	open := false
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		n := len(out)
		switch {
		case strings.Trim(f, "@") == "":
		case n > 0 && clitics[strings.ToLower(f)]:
			out[n-1] += f
		case n > 0 && onlyPunct(f) && f != "-" && f != `"`:
			out[n-1] += f
		case f == "-" && n > 0 && i+1 < len(fs) && endsLetter(out[n-1]) && startsLetter(fs[i+1]):
			out[n-1] += "-" + fs[i+1]
			i++
		case f == `"` && !open && i+1 < len(fs):
			open = true
			fs[i+1] = `"` + fs[i+1]
		case f == `"` && open && n > 0:
			open = false
			out[n-1] += `"`
		default:
			out = append(out, f)
		}
	}
	return out
}

func onlyPunct(s string) bool {
	for _, r := range s {
		if !unicode.IsPunct(r) {
			return false
		}
	}
	return s != ""
}

func endsLetter(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsLetter(r)
}

func startsLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

// punctRun reports whether two of , ; : . ? ! follow one another, with
// at most spaces between (what tidy's rewrites look for).
func punctRun(s string) bool {
	last := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ',', ';', ':', '.', '?', '!':
			if last != 0 && (c == ',' || c == ';' || c == ':' || c == '.' || last == ',' || last == ';' || last == ':') {
				return true
			}
			last = c
		case ' ':
		default:
			last = 0
		}
	}
	return false
}

func tidy(s string) string {
	if punctRun(s) {
		s = commasRE.ReplaceAllString(s, ",")
		s = commaEndRE.ReplaceAllString(s, "$1")
		s = emptySentRE.ReplaceAllString(s, "$1 ")
		s = doubleStopRE.ReplaceAllString(s, ".")
	}
	if s != "" && strings.ContainsRune(",;:. \t", rune(s[0])) {
		s = leadCommaRE.ReplaceAllString(s, "")
	}
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimRight(s, ",;: ")
	return capitalise(s)
}

// capitalise upper-cases the first letter of every sentence: of the text
// and after a . ? or ! that a space follows ("example.com" is no end).
func capitalise(s string) string {
	r := []rune(s)
	start, end := true, false
	for i, c := range r {
		if start && unicode.IsLetter(c) {
			r[i] = unicode.ToUpper(c)
			start, end = false, false
			continue
		}
		switch {
		case c == '.' || c == '?' || c == '!':
			end = true
		case unicode.IsSpace(c):
			start = start || end
		case c == '"' || c == '\'':
		default:
			start, end = false, false
		}
	}
	return string(r)
}

// Sentences splits text (cleaned or not) into sentences at ., ?, ! and …
// followed by a space or the end; pieces without a letter or digit are
// dropped.
func Sentences(text string) []string {
	var out []string
	start := 0
	add := func(s string) {
		s = strings.TrimSpace(s)
		if strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			out = append(out, s)
		}
	}
	for i, r := range text {
		if r != '.' && r != '?' && r != '!' && r != '…' {
			continue
		}
		end := i + utf8.RuneLen(r)
		if end < len(text) && text[end] != ' ' {
			continue
		}
		add(text[start:end])
		start = end
	}
	add(text[start:])
	return out
}

// leads are words that open a spoken sentence without adding to it when
// it is read on its own ("And", "So", "Yeah,", "Okay,", "그래서"), and
// soKeep the words after which "so" is part of the sentence ("so far",
// "so that").
var (
	leads = map[string]bool{
		"and": true, "so": true, "yeah": true, "okay": true, "ok": true, "oh": true, "well": true,
		"alright": true, "anyway": true, "like": true,
		"네": true, "예": true, "그래서": true, "그러니까": true, "근데": true, "그럼": true,
	}
	commaLeads = map[string]bool{"right": true, "now": true, "actually": true, "basically": true}
	soKeep     = map[string]bool{"far": true, "much": true, "many": true, "long": true, "that": true, "to": true}
	// counters make 네 the numeral four ("네 번째", "네 명"), not "yes".
	counters        = []string{"번째", "번", "명", "개", "가지", "시", "달", "살", "분", "대", "군데", "팀", "장", "주", "시간", "개월"}
	counterParticle = []string{"", "이", "가", "은", "는", "을", "를", "로", "으로", "에", "의", "도", "만", "씩", "까지", "부터", "에서"}
)

// KoreanCounter reports whether word (lowercased, trailing punctuation
// cut) is a Korean counter, alone or with a particle ("번째", "명이",
// "가지로"): after it, 네 is the numeral four, not "yes".
func KoreanCounter(word string) bool {
	for _, c := range counters {
		if rest, ok := strings.CutPrefix(word, c); ok && slices.Contains(counterParticle, rest) {
			return true
		}
	}
	return false
}

// TrimLead drops the words that open a sentence without adding to it
// ("And so yeah, we need a budget." → "We need a budget."), as many as
// there are, but never the whole sentence; "right", "now", "actually"
// and "basically" go only when a comma follows them. The rest of the
// sentence is kept as it is, its first letter capitalised.
func TrimLead(sentence string) string {
	fs := strings.Fields(sentence)
	i := 0
	for i < len(fs)-1 {
		core := strings.ToLower(strings.TrimRight(fs[i], ",;:"))
		comma := strings.HasSuffix(fs[i], ",")
		next := strings.ToLower(strings.TrimRight(fs[i+1], ",;:.?!"))
		switch {
		case core == "so" && soKeep[next]:
		case core == "네" && !comma && KoreanCounter(next):
		case leads[core], comma && commaLeads[core]:
			i++
			continue
		}
		break
	}
	if i == 0 {
		return sentence
	}
	return capitalise(strings.Join(fs[i:], " "))
}
