package local

import (
	"math"
	"unicode/utf8"
)

// Feature kinds, hashed into the feature key so that a word and a
// character n-gram with the same letters stay apart.
const (
	kindUnigram byte = 1 + iota
	kindBigram
	kindLatinGram
	kindHangulGram
	kindStopword
)

// Relative weights of the feature kinds. Character n-grams are many per
// word, so each weighs less than the word itself.
var kindWeight = [...]float64{
	kindUnigram:    1.0,
	kindBigram:     0.7,
	kindLatinGram:  0.25,
	kindHangulGram: 0.5,
	kindStopword:   0.5,
}

// bag is a sparse feature vector: feature hash → weight.
type bag map[uint64]float64

// featureCount is how often a feature occurs, with its kind.
type featureCount struct {
	n    int
	kind byte
}

// counter collects feature counts of a text.
type counter map[uint64]featureCount

func (c counter) add(h uint64, kind byte) {
	fc := c[h]
	fc.n++
	fc.kind = kind
	c[h] = fc
}

// bag turns counts into weights with sub-linear term frequency,
// kindWeight × (1 + ln tf).
func (c counter) bag() bag {
	b := make(bag, len(c))
	for h, fc := range c {
		b[h] = kindWeight[fc.kind] * (1 + math.Log(float64(fc.n)))
	}
	return b
}

// countFeatures adds the features of words to c: content-word unigrams,
// bigrams of consecutive content words and character n-grams. When
// fallback is set and no word carries content, the stop words themselves
// become features, so a text like "Yeah, OK." is still distinguishable.
func countFeatures(c counter, words []word, fallback bool) {
	prev := ""
	content := 0
	for _, w := range words {
		if !w.content() {
			continue
		}
		content++
		c.add(hashTerm(kindUnigram, w.term, ""), kindUnigram)
		if prev != "" {
			c.add(hashTerm(kindBigram, prev, w.term), kindBigram)
		}
		prev = w.term
		if w.hangul {
			hangulGrams(c, w.term)
		} else {
			latinGrams(c, w.term)
		}
	}
	if content == 0 && fallback {
		for _, w := range words {
			c.add(hashTerm(kindStopword, w.surface, ""), kindStopword)
		}
	}
}

// latinGrams adds the 3-grams of "^term$" for terms of three or more
// runes.
func latinGrams(c counter, term string) {
	if utf8.RuneCountInString(term) < 3 {
		return
	}
	var buf [64]rune
	rs := append(buf[:0], '^')
	for _, r := range term {
		rs = append(rs, r)
	}
	rs = append(rs, '$')
	for i := 0; i+3 <= len(rs); i++ {
		c.add(hashRunes(kindLatinGram, rs[i:i+3]), kindLatinGram)
	}
}

// hangulGrams adds the syllable 2-grams of a Hangul term.
func hangulGrams(c counter, term string) {
	var buf [32]rune
	rs := buf[:0]
	for _, r := range term {
		rs = append(rs, r)
	}
	for i := 0; i+2 <= len(rs); i++ {
		c.add(hashRunes(kindHangulGram, rs[i:i+2]), kindHangulGram)
	}
}

// FNV-1a, 64 bit.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

// hashTerm hashes a feature kind and one or two terms.
func hashTerm(kind byte, a, b string) uint64 {
	h := (fnvOffset ^ uint64(kind)) * fnvPrime
	for i := 0; i < len(a); i++ {
		h = (h ^ uint64(a[i])) * fnvPrime
	}
	if b != "" {
		h = (h ^ 0) * fnvPrime // separator
		for i := 0; i < len(b); i++ {
			h = (h ^ uint64(b[i])) * fnvPrime
		}
	}
	return h
}

// hashRunes hashes a feature kind and the UTF-8 bytes of runes.
func hashRunes(kind byte, rs []rune) uint64 {
	h := (fnvOffset ^ uint64(kind)) * fnvPrime
	var buf [utf8.UTFMax]byte
	for _, r := range rs {
		n := utf8.EncodeRune(buf[:], r)
		for _, c := range buf[:n] {
			h = (h ^ uint64(c)) * fnvPrime
		}
	}
	return h
}

// add accumulates o × scale into b.
func (b bag) add(o bag, scale float64) {
	for h, v := range o {
		b[h] += v * scale
	}
}

// norm is the Euclidean norm.
func (b bag) norm() float64 {
	s := 0.0
	for _, v := range b {
		s += v * v
	}
	return math.Sqrt(s)
}

// dot is the inner product.
func (b bag) dot(o bag) float64 {
	if len(o) < len(b) {
		b, o = o, b
	}
	s := 0.0
	for h, v := range b {
		s += v * o[h]
	}
	return s
}
