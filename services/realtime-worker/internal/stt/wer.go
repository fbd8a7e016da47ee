package stt

import (
	"strings"
	"unicode"
)

// Normalise lowercases text and keeps only letters, digits and
// apostrophes, one space between words: the form word error rates are
// counted on.
func Normalise(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// WordErrors returns the substitutions, deletions and insertions that
// turn ref into hyp (Levenshtein distance over words) and the words of
// ref.
func WordErrors(ref, hyp string) (errors, words int) {
	r, h := Normalise(ref), Normalise(hyp)
	prev := make([]int, len(h)+1)
	cur := make([]int, len(h)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(r); i++ {
		cur[0] = i
		for j := 1; j <= len(h); j++ {
			sub := prev[j-1]
			if r[i-1] != h[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(h)], len(r)
}
