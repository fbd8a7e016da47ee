package tokens

import (
	"unicode"
	"unicode/utf8"
)

// nextO200K returns the end of the piece that starts at s[i], cutting s
// as o200k_base's pre-tokenizer regex does:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Like nextCL100K it reproduces the backtracking engine's choice: the
// leftmost alternative that matches, and within it the first match in
// greedy order. s must be valid UTF-8 and i < len(s).
func nextO200K(s string, i int) int {
	r0, w0 := runeAt(s, i)
	c0 := classOf(r0)
	// [^\r\n\p{L}\p{N}]? is greedy: with the prefix rune first, then without.
	prefix := c0&(clLetter|clNumber) == 0 && !isNewline(r0)
	if prefix {
		if end := wordLowerTail(s, i+w0); end >= 0 {
			return end
		}
	}
	if end := wordLowerTail(s, i); end >= 0 {
		return end
	}
	if prefix {
		if end := wordUpperHead(s, i+w0); end >= 0 {
			return end
		}
	}
	if end := wordUpperHead(s, i); end >= 0 {
		return end
	}
	// \p{N}{1,3}
	if c0&clNumber != 0 {
		return numberRun(s, i)
	}
	// ' '?[^\s\p{L}\p{N}]+[\r\n/]*
	if r0 == ' ' {
		if r1, _ := runeAt(s, i+w0); r1 >= 0 && classOf(r1)&clNotPunct == 0 {
			return punctRunO200K(s, i+w0)
		}
	}
	if c0&clNotPunct == 0 {
		return punctRunO200K(s, i)
	}
	return spaceRun(s, i)
}

// Rune classes of the o200k pattern. A mark is in both word classes and
// in neither \p{L} nor \p{N}.
const (
	clUpper  = 1 << iota // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clLower              // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	clLetter             // \p{L}
	clNumber             // \p{N}
	clSpace              // \s

	clNotPunct = clLetter | clNumber | clSpace
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = classOfSlow(r)
	}
	return t
}()

func classOf(r rune) uint8 {
	switch {
	case r < 0:
		return 0
	case r < utf8.RuneSelf:
		return asciiClass[r]
	case 0xAC00 <= r && r <= 0xD7A3: // Hangul syllables: Lo
		return clUpper | clLower | clLetter
	}
	return classOfSlow(r)
}

func classOfSlow(r rune) uint8 {
	switch {
	case unicode.IsLetter(r):
		switch {
		case unicode.IsUpper(r) || unicode.IsTitle(r):
			return clUpper | clLetter
		case unicode.IsLower(r):
			return clLower | clLetter
		}
		return clUpper | clLower | clLetter // Lm, Lo
	case unicode.IsMark(r):
		return clUpper | clLower
	case unicode.IsNumber(r):
		return clNumber
	case unicode.IsSpace(r):
		return clSpace
	}
	return 0
}

// spanClass advances from i over runes in any of the classes in mask.
func spanClass(s string, i int, mask uint8) int {
	for i < len(s) {
		r, w := runeAt(s, i)
		if classOf(r)&mask == 0 {
			break
		}
		i += w
	}
	return i
}

// wordLowerTail matches [upper]*[lower]+contraction? at s[p] and returns
// its end, or -1. When the rune after the greedy upper run is not in the
// lower class, the engine gives back upper runes one at a time until one
// of them (an Lm, Lo or mark) can start the lower run.
func wordLowerTail(s string, p int) int {
	k, lastBoth := p, -1
	for k < len(s) {
		r, w := runeAt(s, k)
		c := classOf(r)
		if c&clUpper == 0 {
			break
		}
		k += w
		if c&clLower != 0 {
			lastBoth = k
		}
	}
	if r, _ := runeAt(s, k); classOf(r)&clLower != 0 {
		end := spanClass(s, k, clLower)
		return end + contraction(s, end)
	}
	if lastBoth < 0 {
		return -1
	}
	// The lower run is the single rune ending at lastBoth: the rune after it
	// is an Lu or Lt, or the non-word rune at k.
	return lastBoth + contraction(s, lastBoth)
}

// wordUpperHead matches [upper]+[lower]*contraction? at s[p] and returns
// its end, or -1.
func wordUpperHead(s string, p int) int {
	k := spanClass(s, p, clUpper)
	if k == p {
		return -1
	}
	end := spanClass(s, k, clLower)
	return end + contraction(s, end)
}

// punctRunO200K matches [^\s\p{L}\p{N}]+[\r\n/]* at s[i].
func punctRunO200K(s string, i int) int {
	for i < len(s) {
		r, w := runeAt(s, i)
		if classOf(r)&clNotPunct != 0 {
			break
		}
		i += w
	}
	for i < len(s) && (s[i] == '\r' || s[i] == '\n' || s[i] == '/') {
		i++
	}
	return i
}
