// Package rouge scores a text against a reference with ROUGE-1, ROUGE-2
// and ROUGE-L F1, tokenised and stemmed as Google's rouge-score package
// (rouge_scorer.RougeScorer with use_stemmer=True) does, so figures can be
// set beside published ones:
//
//  1. lowercase the text;
//  2. replace every run of characters other than a–z and 0–9 with a space
//     (so Hangul, accented letters and punctuation all separate words and
//     are dropped);
//  3. split on spaces;
//  4. stem every token longer than 3 characters with the Porter stemmer
//     in NLTK's default mode (see Stem); shorter tokens stay as they are;
//  5. drop empty tokens.
//
// ROUGE-N counts clipped n-gram matches (each n-gram matches at most as
// often as it occurs in the other text); ROUGE-L is the longest common
// subsequence of the two token lists (sentence-level, rougeL, not
// rougeLsum). Precision divides by the candidate's count, recall by the
// reference's, F1 is their harmonic mean, 0 when either is 0.
package rouge

import "strings"

// Tokens tokenises text as rouge-score does with stemming.
func Tokens(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() == 0 {
			return
		}
		w := b.String()
		b.Reset()
		if len(w) > 3 {
			w = Stem(w)
		}
		if w != "" {
			out = append(out, w)
		}
	}
	for _, r := range strings.ToLower(text) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			continue
		}
		flush()
	}
	flush()
	return out
}

// Score is one ROUGE measure.
type Score struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// Scores are ROUGE-1, ROUGE-2 and ROUGE-L of a candidate.
type Scores struct {
	R1 Score `json:"rouge1"`
	R2 Score `json:"rouge2"`
	RL Score `json:"rougeL"`
}

// Compare scores candidate against reference.
func Compare(reference, candidate string) Scores {
	ref, cand := Tokens(reference), Tokens(candidate)
	return CompareTokens(ref, cand)
}

// CompareTokens scores candidate tokens against reference tokens.
func CompareTokens(ref, cand []string) Scores {
	return Scores{R1: ngrams(ref, cand, 1), R2: ngrams(ref, cand, 2), RL: lcs(ref, cand)}
}

func score(match, candCount, refCount int) Score {
	s := Score{Precision: float64(match) / float64(max(candCount, 1)), Recall: float64(match) / float64(max(refCount, 1))}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}

func ngrams(ref, cand []string, n int) Score {
	count := func(ts []string) (map[string]int, int) {
		m := map[string]int{}
		total := 0
		for i := 0; i+n <= len(ts); i++ {
			m[strings.Join(ts[i:i+n], " ")]++
			total++
		}
		return m, total
	}
	rm, rn := count(ref)
	cm, cn := count(cand)
	match := 0
	for g, c := range cm {
		match += min(c, rm[g])
	}
	return score(match, cn, rn)
}

func lcs(ref, cand []string) Score {
	if len(ref) == 0 || len(cand) == 0 {
		return Score{}
	}
	prev := make([]int, len(cand)+1)
	cur := make([]int, len(cand)+1)
	for i := range ref {
		for j := range cand {
			if ref[i] == cand[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return score(prev[len(cand)], len(cand), len(ref))
}
