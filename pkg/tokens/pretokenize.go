package tokens

import (
	"unicode"
	"unicode/utf8"
)

// nextCL100K returns the end of the piece that starts at s[i], cutting s
// as cl100k_base's pre-tokenizer regex does:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// It is a hand-written matcher of that regex (leftmost alternative first,
// \s as unicode.IsSpace, \p{L} and \p{N} as Go's tables), which avoids the
// backtracking engine. s must be valid UTF-8 and i < len(s).
func nextCL100K(s string, i int) int {
	if n := contraction(s, i); n > 0 {
		return i + n
	}
	r0, w0 := runeAt(s, i)
	r1, w1 := runeAt(s, i+w0)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if isLetter(r0) {
		end, _ := span(s, i+w0, isLetter)
		return end
	}
	if !isNewline(r0) && !isNumber(r0) && isLetter(r1) {
		end, _ := span(s, i+w0+w1, isLetter)
		return end
	}
	// \p{N}{1,3}
	if isNumber(r0) {
		return numberRun(s, i)
	}
	// ' '?[^\s\p{L}\p{N}]+[\r\n]*
	if r0 == ' ' && r1 >= 0 && isPunct(r1) {
		end, _ := span(s, i+w0, isPunct)
		end, _ = span(s, end, isNewline)
		return end
	}
	if isPunct(r0) {
		end, _ := span(s, i, isPunct)
		end, _ = span(s, end, isNewline)
		return end
	}
	return spaceRun(s, i)
}

func isLetter(r rune) bool {
	return r < utf8.RuneSelf && asciiLetter(r) || r >= utf8.RuneSelf && unicode.IsLetter(r)
}
func asciiLetter(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
}
func isNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsNumber(r)
}
func isSpace(r rune) bool   { return unicode.IsSpace(r) }
func isNewline(r rune) bool { return r == '\r' || r == '\n' }

// isPunct: not whitespace, not a letter, not a number.
func isPunct(r rune) bool { return !isSpace(r) && !isLetter(r) && !isNumber(r) }

func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// contraction returns the length of 's 't 're 've 'm 'll 'd (any case) at
// s[i], or 0.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	lower := func(k int) byte {
		if k >= len(s) {
			return 0
		}
		c := s[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		return c
	}
	switch lower(i + 1) {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if lower(i+2) == 'e' {
			return 3
		}
	case 'l':
		if lower(i+2) == 'l' {
			return 3
		}
	}
	return 0
}

// span advances from i over runes satisfying f and returns the end and the
// number of runes.
func span(s string, i int, f func(rune) bool) (int, int) {
	n := 0
	for i < len(s) {
		r, w := runeAt(s, i)
		if !f(r) {
			break
		}
		i += w
		n++
	}
	return i, n
}

// numberRun returns the end of \p{N}{1,3} at s[i], where s[i] starts a
// number.
func numberRun(s string, i int) int {
	end := i
	for k := 0; k < 3; k++ {
		r, w := runeAt(s, end)
		if !isNumber(r) {
			break
		}
		end += w
	}
	return end
}

// spaceRun returns the end of the piece the last three alternatives,
// \s*[\r\n]+|\s+(?!\S)|\s+, cut at s[i], where s[i] is whitespace.
// Both encodings end their patterns with them.
func spaceRun(s string, i int) int {
	// \s*[\r\n]+ ends after the run's last newline.
	end, n := span(s, i, isSpace)
	lastNL := -1
	for k := i; k < end; {
		r, w := runeAt(s, k)
		if isNewline(r) {
			lastNL = k + w
		}
		k += w
	}
	if lastNL >= 0 {
		return lastNL
	}
	// \s+(?!\S): the whole run at the end of input, else all but its last
	// rune; \s+ for a single space before a non-space.
	if end == len(s) || n == 1 {
		return end
	}
	_, w := utf8.DecodeLastRuneInString(s[i:end])
	return end - w
}
