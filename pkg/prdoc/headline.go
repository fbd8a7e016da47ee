package prdoc

import (
	"strings"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/textutil"
	"unicode"
)

// Agenda titles that read like a heading. The topic segmenter names a
// topic by its key terms ("tango mode · afterwards · sign"); an agenda
// item is titled instead with a key phrase of its most central sentence:
// the sentence whose content terms are the most frequent in the item, and
// in it the run of two to maxHeadlineWords consecutive content words with
// the highest total frequency, words that occur at least minHeadlineTF
// times in the item (twice when no run has such words). A word's
// frequency is weighed by how new it is in the agenda (noveltyIDF) and
// by how often people name a discussion with it (HeadingWords); a run
// whose first and last words people title with is preferred, and a
// heading an earlier item has is not repeated. An item with no such run
// keeps its title.

const (
	maxHeadlineWords = 5
	// minHeadlineTF is how often a word of the heading occurs in the item.
	minHeadlineTF = 3
)

// headlineStop are words that make no heading: discourse, pronouns and
// common verbs the search stop list keeps.
var headlineStop = textutilSet("per indeed together come back take away get got put because all each every most more less very too enough else another same whole both either neither such own true false yep yeah kay alright one two six seven eight nine ten eleven twelve twenty forty fifty sixty seventy eighty ninety hundred thousand million percent about whether other thing things something anything everything stuff lot bit way actually said say says saw see seen used use using going want need make made guess maybe probably basically course fine good great sure little much many well okay also already still even just thing point idea question problem sense time times first second next last people person she they anyway mean means now understand remember talking done doing reading three four five thirty quite always sorta start off easy really give gives may might wanna gonna under over after before between without within across against during through toward towards upon onto than via", "그냥 이제 그런 이런 저런 그게 이게 거기 여기 진짜 정말 많이 약간 일단 혹시 아마 다시 좀 계속 바로 같이 먼저 제가 내가 네가 니가 누가")

func textutilSet(lists ...string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lists {
		for _, w := range strings.Fields(l) {
			m[w] = true
		}
	}
	return m
}

// headline returns the heading of the item made of turns (those outside
// from..to are ignored), or "" when none is found. novelty weighs a term
// by how few of the agenda's items so far have it (noveltyIDF), so a
// heading names what is new in the item ("scroll wheel" rather than
// "remote control" in a meeting about a remote control); words weighs it
// as a heading word (nil: every word alike); a heading taken reports
// true is passed over.
func headline(turns []Turn, from, to int, novelty func(string) float64, words *HeadingWords, taken func(string) bool) string {
	idf := func(w string) float64 { return novelty(w) * words.factor(w) }
	tf := map[string]int{}
	var cands []sentence
	for _, t := range turns {
		if t.Seq < from || t.Seq > to {
			continue
		}
		for _, s := range sentences(t.Text) {
			for _, w := range textutil.Terms(nil, s.text) {
				tf[w]++
			}
			if s.terms >= 3 && !s.isQuestion() && len(strings.Fields(s.text)) <= 40 {
				cands = append(cands, s)
			}
		}
	}
	// Words that recur three times make the heading; in a short item,
	// where few do, words that recur twice.
	scores := make([]float64, len(cands))
	for k, s := range cands {
		sum := 0.0
		for _, w := range textutil.Terms(nil, s.text) {
			sum += float64(tf[w]-1) * idf(w)
		}
		scores[k] = sum / float64(s.terms)
	}
	for _, edge := range []float64{headingEdgeMin, 0} {
		for _, minTF := range []int{minHeadlineTF, 2} {
			best, bestScore := "", 0.0
			for k, s := range cands {
				if phrase := keyPhrase(s.text, tf, minTF, edge, words, idf); phrase != "" && scores[k] > bestScore && !taken(phrase) {
					best, bestScore = phrase, scores[k]
				}
			}
			if best != "" {
				return best
			}
		}
	}
	return ""
}

// keyPhrase is the run of consecutive content words of text, each with a
// frequency of at least minTF in tf, with the highest total of frequency
// times idf, two to maxHeadlineWords words long.
func keyPhrase(text string, tf map[string]int, minTF int, edge float64, words *HeadingWords, idf func(string) float64) string {
	var (
		best      []string
		bestScore float64
		run       []string
		runScore  []float64
		runEdge   []bool
	)
	consider := func() {
		for i := range run {
			if !runEdge[i] {
				continue
			}
			for j := i + 2; j <= len(run) && j-i <= maxHeadlineWords; j++ {
				if !runEdge[j-1] {
					continue
				}
				sc := 0.0
				for _, v := range runScore[i:j] {
					sc += v
				}
				if sc > bestScore {
					best, bestScore = run[i:j], sc
				}
			}
		}
		run, runScore, runEdge = nil, nil, nil
	}
	for _, w := range strings.Fields(text) {
		word := strings.Trim(w, ",.;:!?\"'()")
		terms := textutil.Terms(nil, word)
		if len(terms) != 1 || !headingWord(terms[0], word) || koreanClause(word) || tf[terms[0]] < minTF || headlineStop[terms[0]] || strings.ContainsAny(word, "'’") {
			consider()
			continue
		}
		run = append(run, word)
		runScore = append(runScore, float64(tf[terms[0]])*idf(terms[0]))
		runEdge = append(runEdge, words.Weight(terms[0]) >= edge)
		if _, particle := headingParticle(word); word != w || particle {
			// Punctuation ends the phrase, and so does a particle: "iOS는
			// phased release" is a clause, not a heading.
			consider()
		}
	}
	consider()
	if len(best) == 0 {
		return ""
	}
	out := append([]string(nil), best...)
	if last := out[len(out)-1]; hasHangul(last) {
		out[len(out)-1], _ = headingParticle(last)
	}
	return upperFirst(strings.Join(out, " "))
}

// headingParticle returns word without its Korean particle and whether
// it had one ("일정이" → "일정", "iOS는" → "iOS"). Many nouns end in a
// syllable that is also a particle ("회의", "평가", "결과"), so a particle
// counts only where at least two letters stay before it.
func headingParticle(word string) (string, bool) {
	if !hasHangul(word) {
		return word, false
	}
	stem := textutil.StripParticle(word)
	if stem == word || utf8.RuneCountInString(stem) < 2 {
		return word, false
	}
	return stem, true
}

// koreanClause reports a Korean word that makes no heading because it
// ends a clause rather than names something: a verb with a connective
// or final ending ("나오면", "있는데", "하니까", "할게요", "합니다"),
// which the heading-word weights, learned from English, know nothing of.
// Two-syllable words ending in 면 are mostly nouns ("화면", "장면"), so
// only the verbs among them are listed.
func koreanClause(word string) bool {
	if !hasHangul(word) {
		return false
	}
	for _, e := range koreanClauseEndings {
		if strings.HasSuffix(word, e) {
			return true
		}
	}
	return strings.HasSuffix(word, "면") && utf8.RuneCountInString(word) >= 3 || koreanShortIfVerbs[word]
}

var (
	koreanClauseEndings = []string{"는데", "니까", "지만", "도록", "려고", "려면", "으면", "어서", "아서", "해서", "면서",
		"니다", "어요", "아요", "해요", "게요", "세요", "까요", "네요", "지요", "죠", "할게", "할께"}
	koreanShortIfVerbs = textutilSet("하면 되면 보면 가면 오면 나면 주면 두면 사면 쓰면")
)

// headingWord reports whether a word (with its one search term) may be
// in a heading: not a number, a date or a count ("25일", "3월", "2026"),
// not a one-syllable Korean word ("제", "팀이"), and an English word of at
// least three letters. A two-syllable noun whose last syllable the search
// terms take for a particle ("회의", "평가", "결과": terms "회", "평",
// "결") is a word of two syllables.
func headingWord(term, word string) bool {
	if r, _ := utf8.DecodeRuneInString(term); unicode.IsDigit(r) {
		return false
	}
	if hasHangul(word) {
		if utf8.RuneCountInString(term) >= 2 {
			return true
		}
		last, _ := utf8.DecodeLastRuneInString(word)
		return utf8.RuneCountInString(word) == 2 && strings.ContainsRune(nounFinals, last) && !headlineStop[word]
	}
	return utf8.RuneCountInString(term) >= 3
}

// nounFinals end two-syllable nouns as often as particles do.
const nounFinals = "의과가도고요로"

// upperFirst upper-cases the first letter of s.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
