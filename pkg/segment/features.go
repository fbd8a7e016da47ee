package segment

import (
	"cmp"
	"math"
	"slices"
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

// feature is one weighted feature, keyed by its hash.
type feature struct {
	h uint64
	v float64
}

// bag is a sparse feature vector sorted by hash, so that sums over it run
// in the same order on every run.
type bag []feature

// featureCount is how often a feature occurs, with its kind.
type featureCount struct {
	n    int
	kind byte
}

// weight is kindWeight × (1 + ln tf): sub-linear term frequency.
func (fc featureCount) weight() float64 {
	return kindWeight[fc.kind] * (1 + math.Log(float64(fc.n)))
}

// counter collects feature counts of a text.
type counter map[uint64]featureCount

// newCounter returns a counter sized for the features of words.
func newCounter(words []word) counter {
	return make(counter, 8*len(words))
}

func (c counter) add(h uint64, kind byte) {
	fc := c[h]
	fc.n++
	fc.kind = kind
	c[h] = fc
}

// bag turns counts into weights, sorted by hash.
func (c counter) bag() bag {
	b := make(bag, 0, len(c))
	for h, fc := range c {
		b = append(b, feature{h: h, v: fc.weight()})
	}
	slices.SortFunc(b, func(x, y feature) int { return cmp.Compare(x.h, y.h) })
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

// featureBag is the feature bag of words; fillers give an empty bag.
func featureBag(words []word) bag {
	c := newCounter(words)
	countFeatures(c, words, false)
	return c.bag()
}

// sumBags returns Σ scale(b)·b over bags, sorted by hash.
func sumBags(bags []bag, scale func(bag) float64) bag {
	acc := make(map[uint64]float64)
	for _, b := range bags {
		k := scale(b)
		for _, f := range b {
			acc[f.h] += k * f.v
		}
	}
	out := make(bag, 0, len(acc))
	for h, v := range acc {
		out = append(out, feature{h: h, v: v})
	}
	slices.SortFunc(out, func(x, y feature) int { return cmp.Compare(x.h, y.h) })
	return out
}

// norm is the Euclidean norm.
func (b bag) norm() float64 {
	s := 0.0
	for _, f := range b {
		s += f.v * f.v
	}
	return math.Sqrt(s)
}

// dot is the inner product, a merge of the two sorted bags.
func (b bag) dot(o bag) float64 {
	s := 0.0
	for i, j := 0, 0; i < len(b) && j < len(o); {
		switch {
		case b[i].h < o[j].h:
			i++
		case b[i].h > o[j].h:
			j++
		default:
			s += b[i].v * o[j].v
			i++
			j++
		}
	}
	return s
}
