package segment

import (
	"math"
	"slices"
	"strings"
)

// keyword is a scored term or two-word phrase.
type keyword struct {
	key     string   // terms joined by a space
	parts   []string // its terms
	display string
	score   float64
}

// termStats gathers a term's or phrase's counts in a topic.
type termStats struct {
	tf, df   int
	parts    []string
	surfaces map[string]int
}

// keywords ranks the terms and phrases of topic by
//
//	√tf · (1 + ln df) · idf · common
//
// where tf counts occurrences, df the topic turns that use it, idf =
// ln(1 + N/df_bg) over the background turns (1 without a background) and
// common < 1 for everyday meeting words; a phrase takes the mean idf ·
// common of its words. Phrases of two consecutive content words count when
// they occur at least twice and replace their words. Terms in boost weigh
// more. At most n keywords are returned, best first.
func keywords(topic, background []doc, boost map[string]bool, n int) []keyword {
	stats := collectTerms(topic)
	bgDF, bgN := backgroundDF(background)
	var ranked []keyword
	for key, st := range stats {
		if len(st.parts) > 1 && st.tf < 2 {
			continue
		}
		weight := 0.0
		for _, p := range st.parts {
			weight += termWeight(p, bgDF, bgN, boost) / float64(len(st.parts))
		}
		score := math.Sqrt(float64(st.tf)) * (1 + math.Log(float64(st.df))) * weight
		if len(st.parts) > 1 {
			score *= phraseBonus
		}
		ranked = append(ranked, keyword{key: key, parts: st.parts, display: mostFrequent(st.surfaces), score: score})
	}
	slices.SortFunc(ranked, func(a, b keyword) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return strings.Compare(a.key, b.key)
	})
	return pick(ranked, n)
}

// collectTerms counts the topic's candidate terms and two-word phrases.
// Stop words, numbers and Korean predicates are no candidates and break
// phrases.
func collectTerms(topic []doc) map[string]*termStats {
	stats := make(map[string]*termStats)
	for _, d := range topic {
		seen := make(map[string]bool)
		var prev *word
		for i := range d.words {
			w := &d.words[i]
			if !w.content() || w.predicate || isNumber(w.term) || numberWords[w.term] {
				prev = nil
				continue
			}
			count(stats, seen, []string{w.term}, displayForm(*w))
			if prev != nil && prev.term != w.term {
				count(stats, seen, []string{prev.term, w.term}, displayForm(*prev)+" "+displayForm(*w))
			}
			prev = w
		}
	}
	return stats
}

// phraseBonus favours a recurring phrase over its single words.
const phraseBonus = 2.2

func count(stats map[string]*termStats, seen map[string]bool, parts []string, surface string) {
	key := strings.Join(parts, " ")
	st := stats[key]
	if st == nil {
		st = &termStats{parts: parts, surfaces: make(map[string]int)}
		stats[key] = st
	}
	st.tf++
	st.surfaces[surface]++
	if !seen[key] {
		seen[key] = true
		st.df++
	}
}

// termWeight is idf × common × boost for one term.
func termWeight(term string, bgDF map[string]int, bgN int, boost map[string]bool) float64 {
	w := 1.0
	if bgN > 0 {
		w = math.Log(1 + float64(bgN)/float64(max(bgDF[term], 1)))
	}
	if commonWords[term] {
		w *= commonPenalty
	}
	if boost[term] {
		w *= hintBoost
	}
	return w
}

// commonPenalty scales everyday meeting words; hintBoost scales the
// keywords of hint topics.
const (
	commonPenalty = 0.35
	hintBoost     = 2.0
)

func backgroundDF(background []doc) (map[string]int, int) {
	if len(background) == 0 {
		return nil, 0
	}
	df := make(map[string]int)
	for _, d := range background {
		seen := make(map[string]bool)
		for _, w := range d.words {
			if w.content() && !seen[w.term] {
				seen[w.term] = true
				df[w.term]++
			}
		}
	}
	return df, len(background)
}

// pick takes the best keywords, letting a phrase replace a single word it
// contains and skipping words of a phrase already taken.
func pick(ranked []keyword, n int) []keyword {
	var out []keyword
	for _, k := range ranked {
		if len(out) == n {
			break
		}
		if len(k.parts) == 1 {
			if !slices.ContainsFunc(out, func(o keyword) bool { return slices.Contains(o.parts, k.key) }) {
				out = append(out, k)
			}
			continue
		}
		if slices.ContainsFunc(out, func(o keyword) bool { return o.key == k.key || len(o.parts) > 1 && overlaps(o.parts, k.parts) }) {
			continue
		}
		if i := slices.IndexFunc(out, func(o keyword) bool { return len(o.parts) == 1 && slices.Contains(k.parts, o.key) }); i >= 0 {
			k.score = max(k.score, out[i].score)
			out[i] = k
			out = slices.DeleteFunc(out, func(o keyword) bool {
				return len(o.parts) == 1 && o.key != k.key && slices.Contains(k.parts, o.key)
			})
			continue
		}
		out = append(out, k)
	}
	slices.SortStableFunc(out, func(a, b keyword) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	return out
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// displayForm is how a word appears in keywords: Hangul words without
// their particles, acronyms in capitals, other words lowercased.
func displayForm(w word) string {
	switch {
	case w.hangul:
		return w.term
	case w.acronym:
		return strings.ToUpper(w.surface)
	}
	return w.surface
}

// mostFrequent returns the most frequent surface form, the smallest on
// ties.
func mostFrequent(m map[string]int) string {
	best, bestN := "", 0
	for s, n := range m {
		if n > bestN || n == bestN && s < best {
			best, bestN = s, n
		}
	}
	return best
}

func isNumber(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// numberWords are spelled-out numbers, which make poor keywords.
var numberWords = set(`zero one two three four five six seven eight nine ten eleven twelve thirteen
	fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty
	ninety hundred thousand million billion percent half 하나 둘 셋 넷 다섯 여섯 일곱 여덟 아홉 열 백 천 만 억`)

// commonWords are everyday meeting words that rarely name a topic.
var commonWords = set(
	`people person time times point question problem idea meeting today tomorrow week next last first
	second start end part kind bit lot minute minutes day days year years number case fact area group
	team place example reason sense moment thing word words talk question answer point issue issues
	different same new old big small long short high low important able whole real possible certain
	next previous other another everybody somebody yesterday morning afternoon hour hours back better
	best worse bad show stuff try start started course mind least`,
	`부분 정도 경우 문제 내용 회의 사람 오늘 내일 다음 관련 시간 방법 이번 지난 전체 하나 두 세 처음 마지막
	때문 이유 의견 질문 답변 부탁 확인 진행 시작 끝 예 예시 사실 상황 쪽 분 명 개 번`,
)
