package tokens

import "unicode/utf8"

// Part is one piece of a prompt.
type Part struct {
	Name string
	Text string
	// Tokens, when positive, is the part's size and Text is not counted:
	// a count stored at ingest, ImageTokens or FileTokens.
	Tokens int
	// Truncate says whether an optional text part that does not fit whole
	// may be cut to fit, and which end it keeps. Required parts are never
	// cut.
	Truncate Truncation
}

// Truncation says how a part may be cut to fit.
type Truncation int

const (
	// NoTruncation drops a part that does not fit whole.
	NoTruncation Truncation = iota
	// KeepHead cuts the end of the text (a document).
	KeepHead
	// KeepTail cuts the start of the text (recent turns).
	KeepTail
)

// Packer fits prompt parts into a token budget.
type Packer struct {
	Counter Counter
	// Budget is the number of prompt tokens available, usually
	// Budget.Available().
	Budget int
}

// Packed is the result of Packer.Pack.
type Packed struct {
	// Parts lists the required parts, then the optional ones, in the order
	// given.
	Parts []PackedPart
	// Total is the sum of the included parts' tokens.
	Total  int
	Budget int
}

// PackedPart is the accounting for one part.
type PackedPart struct {
	Name string
	// Text is what to send: the part's text, cut if Truncated, empty if not
	// Included.
	Text      string
	Tokens    int
	Included  bool
	Truncated bool
}

// Overflow is how far the required parts alone exceed the budget; optional
// parts never add to it.
func (p Packed) Overflow() int { return max(p.Total-p.Budget, 0) }

// Pack keeps every required part (the system prompt, the question), even
// past the budget, then adds optional parts in priority order while they
// fit. An optional part that does not fit whole is cut to the space left
// on a rune boundary if its Truncate allows it, else dropped; later, smaller
// parts may still fit.
func (p Packer) Pack(required, optional []Part) Packed {
	out := Packed{Parts: make([]PackedPart, 0, len(required)+len(optional)), Budget: p.Budget}
	for _, part := range required {
		n := p.size(part)
		out.Parts = append(out.Parts, PackedPart{Name: part.Name, Text: part.Text, Tokens: n, Included: true})
		out.Total += n
	}
	for _, part := range optional {
		pp := p.fit(part, p.Budget-out.Total)
		out.Parts = append(out.Parts, pp)
		out.Total += pp.Tokens
	}
	return out
}

func (p Packer) size(part Part) int {
	if part.Tokens > 0 {
		return part.Tokens
	}
	return p.Counter.Count(part.Text)
}

// fit returns the accounting for an optional part given room tokens left.
func (p Packer) fit(part Part, room int) PackedPart {
	pp := PackedPart{Name: part.Name}
	if n := p.size(part); n <= room {
		pp.Text, pp.Tokens, pp.Included = part.Text, n, true
		return pp
	}
	if part.Truncate == NoTruncation || part.Text == "" || room <= 0 {
		return pp
	}
	text, n := p.cut(part.Text, room, part.Truncate == KeepTail)
	if n == 0 {
		return pp
	}
	pp.Text, pp.Tokens, pp.Included, pp.Truncated = text, n, true, true
	return pp
}

// cut returns a long head (or tail) of text, cut on a rune boundary, that
// fits in room tokens, and its count. BPE counts are not monotonic in
// length, so the search may stop a few runes short of the longest that
// fits.
func (p Packer) cut(text string, room int, keepTail bool) (string, int) {
	piece := func(k int) string {
		if keepTail {
			return text[len(text)-k:]
		}
		return text[:k]
	}
	// A length of lo bytes fits with loN tokens; hi bytes do not. No token
	// is shorter than a byte, so room bytes fit; gallop from there, then
	// bisect.
	lo := roundLen(text, min(room, len(text)), keepTail, false)
	loN, hi := p.Counter.Count(piece(lo)), len(text)
	for step := max(lo, 1); lo+step < hi; step *= 2 {
		k := roundLen(text, lo+step, keepTail, true)
		if k >= hi {
			break
		}
		n := p.Counter.Count(piece(k))
		if n > room {
			hi = k
			break
		}
		lo, loN = k, n
	}
	for {
		mid := roundLen(text, lo+(hi-lo)/2, keepTail, false)
		if mid <= lo {
			mid = roundLen(text, lo+1, keepTail, true)
		}
		if mid >= hi {
			return piece(lo), loN
		}
		if n := p.Counter.Count(piece(mid)); n <= room {
			lo, loN = mid, n
		} else {
			hi = mid
		}
	}
}

// roundLen rounds the length k of a head (or tail) of text to a rune
// boundary, down or up.
func roundLen(text string, k int, tail, up bool) int {
	for k > 0 && k < len(text) {
		start := k // where the next rune after the head starts
		if tail {
			start = len(text) - k // where the tail starts
		}
		if utf8.RuneStart(text[start]) {
			break
		}
		if up {
			k++
		} else {
			k--
		}
	}
	return k
}
