package convmemory

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/cleantext"
)

// Fact-preserving extraction (docs/architecture.md §7): a summary is the
// sentences a person is most likely to ask about later, chosen greedily by
// specificity and novelty (maximal marginal relevance) within a token
// budget and kept in conversation order, one per line.

// candidate is one sentence that may enter a summary.
type candidate struct {
	// line is the sentence as written into the summary ("speaker: text").
	line   string
	terms  map[string]bool
	feats  []feature
	cues   float64
	short  bool
	words  int
	score  float64
	tokens int
	pos    int
}

// maxSentenceWords bounds a candidate; longer sentences (run-on speech
// without punctuation) are cut into pieces of this many words.
const maxSentenceWords = 45

// novelty is how strongly overlap with already chosen sentences lowers a
// candidate's gain (0: not at all, 1: a duplicate gains nothing).
const novelty = 0.8

// minScore is the least score of a sentence added after the first: a
// summary does not fill its budget with backchannel.
const minScore = 1.0

// selectFacts chooses among cands the lines of a summary of at most
// budget tokens (always at least one line), in their original order.
func selectFacts(cands []candidate, budget int) []string {
	if len(cands) == 0 {
		return nil
	}
	score(cands)
	chosen := make([]int, 0, 8)
	used := 0
	taken := make([]bool, len(cands))
	for {
		best, bestGain := -1, 0.0
		for i, c := range cands {
			if taken[i] || len(chosen) > 0 && (used+c.tokens > budget || c.score < minScore) {
				continue
			}
			sim := 0.0
			for _, j := range chosen {
				sim = max(sim, overlap(c.terms, cands[j].terms))
			}
			gain := c.score * (1 - novelty*sim) / math.Sqrt(float64(max(c.words, 6)))
			if gain > bestGain {
				best, bestGain = i, gain
			}
		}
		if best < 0 {
			break
		}
		taken[best] = true
		chosen = append(chosen, best)
		used += cands[best].tokens
		if used >= budget {
			break
		}
	}
	if len(chosen) == 0 {
		// Nothing scored: keep the first sentence, cut to the budget.
		return []string{cutToTokens(cands[0].line, budget)}
	}
	slices.Sort(chosen)
	out := make([]string, len(chosen))
	for i, j := range chosen {
		out[i] = cands[j].line
	}
	return out
}

// score sets each candidate's score: its features, each scaled by
// 1/sqrt of the number of candidates sharing its term (a name said in
// every line is not what singles one out), plus its decision cues, plus a
// small share for how many of its terms recur in other candidates, so
// that among equally specific sentences the ones about the subject win
// and a chunk without a single specific sentence still keeps its gist.
// Short sentences (backchannel) keep 30%.
func score(cands []candidate) {
	df := map[string]int{}
	fdf := map[string]int{}
	for _, c := range cands {
		for t := range c.terms {
			df[t]++
		}
		seen := map[string]bool{}
		for _, f := range c.feats {
			if !seen[f.term] {
				seen[f.term] = true
				fdf[f.term]++
			}
		}
	}
	for i := range cands {
		c := &cands[i]
		s := c.cues
		for _, f := range c.feats {
			s += f.weight / math.Sqrt(float64(max(fdf[f.term], 1)))
		}
		shared := 0
		for t := range c.terms {
			if df[t] > 1 {
				shared++
			}
		}
		s += 0.25 * math.Log1p(float64(shared))
		if c.short {
			s *= 0.3
		}
		c.score = s
	}
}

// overlap is the share of a's terms also in b (0 when a has none).
func overlap(a, b map[string]bool) float64 {
	if len(a) == 0 {
		return 0
	}
	n := 0
	for t := range a {
		if b[t] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// turnCandidates splits turns into candidate sentences.
func turnCandidates(turns []Turn) []candidate {
	var out []candidate
	for _, t := range turns {
		text := t.Text
		if looksTranscribed(text) {
			text = cleantext.Clean(text)
		}
		for _, s := range splitSentences(text) {
			out = append(out, newCandidate(renderTurn(t.Speaker, s), s, len(out)))
		}
	}
	return out
}

// looksTranscribed reports whether text has a transcript's markup or
// tokenised spacing ("{disfmarker}", "it 's", "word ,"), which
// cleantext.Clean removes; other text is left as written.
func looksTranscribed(text string) bool {
	return strings.Contains(text, "{") || strings.Contains(text, " ,") || strings.Contains(text, " .") || strings.Contains(text, " '")
}

// summaryCandidates splits summaries (one sentence a line, as
// selectFacts writes them) into candidates; the speaker prefix is kept in
// the line but not scored.
func summaryCandidates(parts []string) []candidate {
	var out []candidate
	for _, p := range parts {
		for _, line := range strings.Split(p, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			body := line
			if sp, rest, ok := strings.Cut(line, ": "); ok && utf8.RuneCountInString(sp) <= 40 && !strings.ContainsAny(sp, ".!?") {
				body = rest
			}
			for _, s := range splitSentences(body) {
				text := s
				if body != line {
					text = line[:len(line)-len(body)] + s
				}
				out = append(out, newCandidate(text, s, len(out)))
			}
		}
	}
	return out
}

func newCandidate(line, sentence string, pos int) candidate {
	words := strings.Fields(sentence)
	c := candidate{line: line, pos: pos, tokens: estimateTokens(line), terms: map[string]bool{}}
	for _, w := range words {
		if t := term(w); t != "" {
			c.terms[t] = true
		}
	}
	c.feats, c.cues = specificity(words)
	c.short = len(words) < 5
	c.words = len(words)
	return c
}

// feature is one specific word of a sentence: its weight and its term
// (weights are scaled down for terms many candidates share).
type feature struct {
	weight float64
	term   string
}

// specificity scores the words of a sentence for what a person asks about
// later: numbers and dates, identifiers (CamelCase, snake_case, file
// names, paths, calls), acronyms, proper nouns (capitalised words inside
// a sentence or in a run at its start, Korean names), and decisions with
// their reasons and owners. It returns the per-word features, scaled
// later by how rare their terms are among the candidates, and the score
// of the decision cues.
func specificity(words []string) (feats []feature, cueScore float64) {
	cues := 0
	for i, raw := range words {
		w := strings.Trim(raw, ",.;:!?\"'()[]{}<>“”‘’…`*")
		if w == "" {
			continue
		}
		weight := 0.0
		switch {
		case isSpelled(w):
			// Letters spelled out in a transcript ("T_V_", "L_C_D_"):
			// an acronym when there are two or more, noise when one
			// ("F_", a false start).
			if strings.Count(w, "_") > 1 {
				weight = 1.5
			}
		case isDate(w, words, i):
			weight = 3
		case isDateOrNumber(w):
			weight = 2
		case isIdentifier(w):
			weight = 2.5
		case isAcronym(w):
			weight = 1.5
		case isCapitalised(w) && (i > 0 || i+1 < len(words) && isCapitalised(strings.Trim(words[i+1], ",.;:!?"))):
			weight = 1.2
		case isKoreanName(w) || titled(words, i):
			weight = 1.5
		}
		if weight > 0 {
			feats = append(feats, feature{weight: weight, term: strings.ToLower(w)})
		}
		if cues < 2 && isDecisionCue(strings.ToLower(w)) {
			cueScore += 1.5
			cues++
		}
	}
	return feats, cueScore
}

// isDate: an ISO date (2026-03-14), a day with a month (March 14,
// 14 March, 3월 14일), or a year.
func isDate(w string, words []string, i int) bool {
	if len(w) == 10 && w[4] == '-' && w[7] == '-' && isDateOrNumber(w) {
		return true
	}
	if strings.HasSuffix(w, "일") && i > 0 && strings.HasSuffix(words[i-1], "월") && isDateOrNumber(words[i-1]) {
		return true
	}
	if monthNames[strings.ToLower(w)] {
		near := func(j int) bool {
			return j >= 0 && j < len(words) && isDateOrNumber(strings.Trim(words[j], ",."))
		}
		return near(i-1) || near(i+1)
	}
	return false
}

var monthNames = map[string]bool{}

func init() {
	for _, m := range strings.Fields("january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec") {
		monthNames[m] = true
	}
}

func isDateOrNumber(w string) bool {
	digits := 0
	for _, r := range w {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	return digits > 0 && digits*2 >= utf8.RuneCountInString(w)-countHangul(w)*2
}

func countHangul(w string) int {
	n := 0
	for _, r := range w {
		if isHangul(r) {
			n++
		}
	}
	return n
}

func isHangul(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 }

// isIdentifier: snake_case, CamelCase inside the word, a file name
// (name.ext), a path or a call.
func isIdentifier(w string) bool {
	if strings.HasSuffix(w, "()") || strings.Contains(w, "/") && len(w) > 2 {
		return true
	}
	prevLower := false
	for i, r := range w {
		switch {
		case r == '_' && i > 0 && i < len(w)-1 && isSnakeCase(w):
			return true
		case r == '.' && i > 0 && i < len(w)-1:
			// A file extension is lower case ("engine.go", "README.md");
			// "Mr.Singh" is a title and a name.
			ext := w[i+1:]
			if len(ext) <= 5 && isASCIILetters(ext) && strings.ToLower(ext) == ext && isASCIILetters(w[:1]) {
				return true
			}
		case unicode.IsUpper(r) && prevLower:
			return true
		}
		prevLower = unicode.IsLower(r)
	}
	return false
}

// isSnakeCase: words joined by underscores, at least one of them longer
// than a letter (not a spelled-out acronym such as "T_V_").
func isSnakeCase(w string) bool {
	long := false
	for _, p := range strings.Split(strings.Trim(w, "_"), "_") {
		if p == "" {
			return false
		}
		long = long || utf8.RuneCountInString(p) > 1
	}
	return long
}

// isSpelled: single letters each followed by an underscore, the way
// transcripts write spelled-out letters ("T_V_", "F_").
func isSpelled(w string) bool {
	if len(w) < 2 || len(w)%2 != 0 {
		return false
	}
	for i := 0; i < len(w); i += 2 {
		if !isASCIILetters(w[i:i+1]) || w[i+1] != '_' {
			return false
		}
	}
	return true
}

func isASCIILetters(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return s != ""
}

func isAcronym(w string) bool {
	if len(w) < 2 || len(w) > 8 || stopTerms[strings.ToLower(w)] {
		return false
	}
	for _, r := range w {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// isCapitalised: an English word with a capital first letter that is
// not the pronoun I or a contraction of it.
func isCapitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	if len(w) < 2 || !unicode.IsUpper(r) || r > unicode.MaxASCII {
		return false
	}
	l := strings.ToLower(w)
	return l != "i" && !strings.HasPrefix(l, "i'") && !strings.HasPrefix(l, "i’") && !stopTerms[l]
}

// koreanSurnames are the most common Korean family names: a three-syllable
// word starting with one, followed by a particle or a title, reads as a
// person's name.
const koreanSurnames = "김이박최정강조윤장임한오서신권황안송류홍전고문양손배백허유남심노하곽성차주우구민진나엄"

// koreanNameEndings follow a name: particles and titles.
var koreanNameEndings = []string{"님이", "님은", "님께서", "님께", "님의", "님", "씨가", "씨는", "씨", "에게", "이가", "이는", "이고", "이다", "이에요", "입니다", "은", "는", "이", "가", "을", "를", "의", "와", "과", "도", "께서", "께"}

func isKoreanName(w string) bool {
	rs := []rune(w)
	if len(rs) < 3 || !isHangul(rs[0]) || !strings.ContainsRune(koreanSurnames, rs[0]) {
		return false
	}
	if len(rs) == 3 {
		// A bare name ends a clause ("담당은 김서연"); verb forms end in
		// these syllables instead.
		return allHangul(rs) && !strings.ContainsRune("게고서면데지요다까네며죠야요라해했할된될한는은을를이가에도로", rs[2])
	}
	for _, e := range koreanNameEndings {
		if stem, ok := strings.CutSuffix(w, e); ok && utf8.RuneCountInString(stem) == 3 && allHangul([]rune(stem)) {
			return true
		}
	}
	return false
}

// titled: a three-syllable Hangul word starting with a family name and
// followed by the title 님 or 씨 as a word of its own ("김서연 님이").
func titled(words []string, i int) bool {
	rs := []rune(strings.Trim(words[i], ",."))
	if len(rs) != 3 || !allHangul(rs) || !strings.ContainsRune(koreanSurnames, rs[0]) || i+1 >= len(words) {
		return false
	}
	return strings.HasPrefix(words[i+1], "님") || strings.HasPrefix(words[i+1], "씨")
}

func allHangul(rs []rune) bool {
	for _, r := range rs {
		if !isHangul(r) {
			return false
		}
	}
	return true
}

// decisionCues mark decisions, commitments, owners, deadlines and reasons.
var decisionCues = []string{"decid", "agree", "approv", "chose", "choose", "deadline", "owner", "responsib",
	"because", "instead", "must", "require", "commit", "deliver", "assign", "schedul",
	"결정", "기로", "합의", "담당", "맡", "마감", "때문", "예정", "확정", "변경", "까지", "책임", "선택"}

func isDecisionCue(w string) bool {
	for _, c := range decisionCues {
		if strings.Contains(w, c) {
			return true
		}
	}
	return false
}

// stopTerms are English function words left out of the novelty terms.
var stopTerms = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the a an and or but so to of in on at for with by from as is are was were be been
		it this that these those we you they he she i me my our your their them us do does did not no yes
		have has had will would can could should there here what which who how when where if then than
		just like um uh yeah okay ok oh well mean know think gonna wanna sort kind really very also about`) {
		stopTerms[w] = true
	}
}

// term is a word's form for novelty: lowercased, punctuation trimmed,
// stopwords and one-letter Latin words dropped, a Korean particle cut.
func term(w string) string {
	w = strings.ToLower(strings.Trim(w, ",.;:!?\"'()[]{}<>“”‘’…`*-"))
	if w == "" || stopTerms[w] {
		return ""
	}
	rs := []rune(w)
	if isHangul(rs[len(rs)-1]) && len(rs) > 2 {
		for _, p := range []string{"에서", "으로", "은", "는", "이", "가", "을", "를", "에", "의", "도", "로", "와", "과"} {
			if stem, ok := strings.CutSuffix(w, p); ok {
				return stem
			}
		}
		return w
	}
	if len(rs) < 2 {
		return ""
	}
	return w
}

// splitSentences splits text after . ? ! 。 … and line breaks when a
// space or the end follows, and cuts over-long sentences into pieces of
// maxSentenceWords words.
func splitSentences(text string) []string {
	var out []string
	add := func(s string) {
		fs := strings.Fields(s)
		for len(fs) > 0 {
			n := min(len(fs), maxSentenceWords)
			out = append(out, strings.Join(fs[:n], " "))
			fs = fs[n:]
		}
	}
	start := 0
	for i, r := range text {
		switch r {
		case '.', '?', '!', '。', '…', '？', '！', '\n':
		default:
			continue
		}
		next := i + utf8.RuneLen(r)
		if next < len(text) && text[next] != ' ' && text[next] != '\n' && r != '\n' {
			continue
		}
		add(text[start:next])
		start = next
	}
	add(text[start:])
	return out
}

// estimateTokens approximates a cl100k count: about four bytes per token
// for ASCII text, one token per other character (Hangul is mostly one or
// two).
func estimateTokens(s string) int {
	ascii, other := 0, 0
	for _, r := range s {
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
	}
	return max(1, (ascii+3)/4+other)
}

// cutToTokens shortens s to about n tokens at a word boundary.
func cutToTokens(s string, n int) string {
	if estimateTokens(s) <= n {
		return s
	}
	fs := strings.Fields(s)
	for len(fs) > 1 && estimateTokens(strings.Join(fs, " "))+1 > n {
		fs = fs[:len(fs)-1]
	}
	return strings.Join(fs, " ") + "…"
}
