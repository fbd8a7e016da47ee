package lenient

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// status says what a parse step wrote.
type status int

const (
	// complete: a whole value.
	complete status = iota
	// partial: the input ended or broke inside the value; a shortened,
	// closed value was written.
	partial
	// none: nothing usable; the caller removes what the step wrote.
	none
)

// stop says why parsing ended early.
type stop int

const (
	running stop = iota
	atEOF
	atSyntax
)

// maxDepth bounds nesting.
const maxDepth = 200

// parser reads one JSON-like value and writes it as strict JSON to out.
type parser struct {
	s     string
	i     int
	out   []byte
	stack []byte // open containers, '{' or '['
	stop  stop
	// dropped is set once the incomplete element at the point where the
	// input ended has been removed, so enclosing arrays keep theirs.
	dropped bool
}

// parse reads the object or array at the start of s. It returns the
// repaired JSON, how much of s it covered, and whether the result is
// usable: complete, or repaired with at least one member or element kept.
func parse(s string) ([]byte, int, bool) {
	p := &parser{s: s}
	switch p.container() {
	case complete:
		return p.out, p.i, true
	case partial:
		return p.out, p.i, len(p.out) > 2
	default:
		return nil, 0, false
	}
}

func (p *parser) eof() bool { return p.i >= len(p.s) }

func (p *parser) fail(why stop) status {
	if p.stop == running {
		p.stop = why
	}
	return none
}

// skipSpace skips whitespace (including Unicode spaces, BOM and zero-width
// spaces) and // or /* */ comments.
func (p *parser) skipSpace() {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '/' && strings.HasPrefix(p.s[p.i:], "//"):
			if end := strings.IndexByte(p.s[p.i:], '\n'); end >= 0 {
				p.i += end + 1
			} else {
				p.i = len(p.s)
			}
		case c == '/' && strings.HasPrefix(p.s[p.i:], "/*"):
			if end := strings.Index(p.s[p.i+2:], "*/"); end >= 0 {
				p.i += end + 4
			} else {
				p.i = len(p.s)
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			if !unicode.IsSpace(r) && r != '\uFEFF' && r != '\u200B' {
				return
			}
			p.i += size
		default:
			return
		}
	}
}

// value reads any value.
func (p *parser) value() status {
	p.skipSpace()
	if p.eof() {
		return p.fail(atEOF)
	}
	switch c := p.s[p.i]; {
	case c == '{' || c == '[':
		return p.container()
	case c == '"' || c == '\'' || p.atSmartQuote():
		return p.str()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return p.literal()
	}
	return p.fail(atSyntax)
}

// container reads the object or array at p.i.
func (p *parser) container() status {
	if len(p.stack) >= maxDepth {
		return p.fail(atSyntax)
	}
	open := p.s[p.i]
	p.i++
	p.stack = append(p.stack, open)
	defer func() { p.stack = p.stack[:len(p.stack)-1] }()
	if open == '{' {
		return p.object()
	}
	return p.array()
}

// parentIs says whether the container enclosing the current one opened
// with c.
func (p *parser) parentIs(c byte) bool {
	return len(p.stack) >= 2 && p.stack[len(p.stack)-2] == c
}

func (p *parser) array() status {
	p.out = append(p.out, '[')
	n := 0
	for {
		p.skipSpace()
		if p.eof() {
			p.fail(atEOF)
			return p.close(']', partial)
		}
		switch p.s[p.i] {
		case ']':
			p.i++
			return p.close(']', complete)
		case '}': // wrong closer: end the array; an enclosing object takes the brace
			if !p.parentIs('{') {
				p.i++
			}
			return p.close(']', complete)
		case ',': // trailing, leading or doubled commas
			p.i++
			continue
		}
		mark := len(p.out)
		if n > 0 {
			p.out = append(p.out, ',')
		}
		st := p.value()
		if st == complete {
			n++
			continue
		}
		if st == none || !p.dropped {
			p.out = p.out[:mark]
			p.dropped = true
		}
		return p.close(']', partial)
	}
}

func (p *parser) object() status {
	p.out = append(p.out, '{')
	n := 0
	for {
		p.skipSpace()
		if p.eof() {
			p.fail(atEOF)
			return p.close('}', partial)
		}
		switch p.s[p.i] {
		case '}':
			p.i++
			return p.close('}', complete)
		case ']':
			if !p.parentIs('[') {
				p.i++
			}
			return p.close('}', complete)
		case ',':
			p.i++
			continue
		}
		mark := len(p.out)
		if n > 0 {
			p.out = append(p.out, ',')
		}
		if p.key() != complete {
			p.out = p.out[:mark]
			return p.close('}', partial)
		}
		p.skipSpace()
		if p.eof() || p.s[p.i] != ':' {
			if p.eof() {
				p.fail(atEOF)
			} else {
				p.fail(atSyntax)
			}
			p.out = p.out[:mark]
			return p.close('}', partial)
		}
		p.i++
		p.out = append(p.out, ':')
		switch p.value() {
		case complete:
			n++
			continue
		case none:
			p.out = p.out[:mark]
		}
		// A cut string or container stays, closed.
		return p.close('}', partial)
	}
}

func (p *parser) close(c byte, st status) status {
	p.out = append(p.out, c)
	return st
}

// key reads a member name: a string in any quotes or a bare word.
func (p *parser) key() status {
	if c := p.s[p.i]; c == '"' || c == '\'' || p.atSmartQuote() {
		st := p.str()
		if st == partial {
			return none
		}
		return st
	}
	start := p.i
	for p.i < len(p.s) {
		r, size := utf8.DecodeRuneInString(p.s[p.i:])
		if r != '_' && r != '$' && r != '-' && r != '.' &&
			!unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) {
			break
		}
		p.i += size
	}
	switch {
	case p.i == start:
		return p.fail(atSyntax)
	case p.eof():
		return p.fail(atEOF)
	}
	p.out = strconv.AppendQuote(p.out, p.s[start:p.i])
	return complete
}

// Quote characters models use as string delimiters.
const (
	leftDouble  = '\u201C' // “
	rightDouble = '\u201D' // ”
	lowDouble   = '\u201E' // „
	leftSingle  = '\u2018' // ‘
	rightSingle = '\u2019' // ’
)

func (p *parser) atSmartQuote() bool {
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return r == leftDouble || r == rightDouble || r == lowDouble || r == leftSingle || r == rightSingle
}

// closesString says whether r ends a string opened with open.
func closesString(open, r rune) bool {
	switch open {
	case '"', '\'':
		return r == open
	case leftDouble, rightDouble, lowDouble:
		return r == rightDouble || r == leftDouble || r == '"'
	default:
		return r == rightSingle || r == leftSingle || r == '\''
	}
}

// str reads a string opened by ", ', or a smart quote. A closing quote
// counts only where a string can end: before , : } ] or the end of the
// input, or before a quote on a later line (a missing comma). Any other
// quote is text, so unescaped quotes and apostrophes inside survive.
func (p *parser) str() status {
	open, size := utf8.DecodeRuneInString(p.s[p.i:])
	p.i += size
	p.out = append(p.out, '"')
	for p.i < len(p.s) {
		r, size := utf8.DecodeRuneInString(p.s[p.i:])
		if closesString(open, r) && p.endsString(p.i+size) {
			p.i += size
			p.out = append(p.out, '"')
			return complete
		}
		switch {
		case r == '\\':
			p.escape()
			continue
		case r == '"':
			p.out = append(p.out, '\\', '"')
		case r < 0x20:
			p.out = appendControl(p.out, r)
		case r == utf8.RuneError && size == 1:
			p.out = append(p.out, "\uFFFD"...)
		default:
			p.out = append(p.out, p.s[p.i:p.i+size]...)
		}
		p.i += size
	}
	p.fail(atEOF)
	p.out = append(p.out, '"')
	return partial
}

// endsString says whether a quote before position j can close a string.
func (p *parser) endsString(j int) bool {
	newline := false
	for j < len(p.s) {
		r, size := utf8.DecodeRuneInString(p.s[j:])
		switch {
		case r == '\n':
			newline = true
		case unicode.IsSpace(r):
		case r == ',' || r == ':' || r == '}' || r == ']':
			return true
		case r == '/' && (strings.HasPrefix(p.s[j:], "//") || strings.HasPrefix(p.s[j:], "/*")):
			return true
		case r == '"' || r == '\'' || r == leftDouble || r == leftSingle:
			return newline
		default:
			return false
		}
		j += size
	}
	return true
}

// escape copies the escape sequence at p.i; unknown escapes keep their
// backslash as text and \' becomes a plain apostrophe.
func (p *parser) escape() {
	if p.i+1 >= len(p.s) {
		p.i++
		return
	}
	switch c := p.s[p.i+1]; c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		p.out = append(p.out, '\\', c)
		p.i += 2
	case '\'':
		p.out = append(p.out, '\'')
		p.i += 2
	case 'u':
		hex := p.s[p.i+2 : min(p.i+6, len(p.s))]
		switch {
		case len(hex) == 4 && isHex(hex):
			p.out = append(p.out, p.s[p.i:p.i+6]...)
			p.i += 6
		case len(hex) < 4 && isHex(hex): // cut off inside the escape
			p.i = len(p.s)
		default:
			p.out = append(p.out, '\\', '\\')
			p.i++
		}
	default:
		p.out = append(p.out, '\\', '\\')
		p.i++
	}
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func appendControl(out []byte, r rune) []byte {
	switch r {
	case '\n':
		return append(out, '\\', 'n')
	case '\r':
		return append(out, '\\', 'r')
	case '\t':
		return append(out, '\\', 't')
	}
	const hexDigits = "0123456789abcdef"
	return append(out, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xF])
}

// number reads a number; forms JSON does not allow (+1, .5, 007, 1.) are
// rewritten. A number that reaches the end of the input may be cut and is
// dropped.
func (p *parser) number() status {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
		p.i++
	}
	tok := p.s[start:p.i]
	if p.eof() {
		return p.fail(atEOF)
	}
	if isJSONNumber(tok) {
		p.out = append(p.out, tok...)
		return complete
	}
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		p.i = start
		return p.fail(atSyntax)
	}
	p.out = strconv.AppendFloat(p.out, f, 'g', -1, 64)
	return complete
}

// isJSONNumber matches -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber(s string) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// literal reads true, false and null, also in Python and JavaScript
// spellings.
func (p *parser) literal() status {
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] >= 'A' && p.s[p.i] <= 'Z') {
		p.i++
	}
	word := p.s[start:p.i]
	switch word {
	case "true", "True", "TRUE":
		p.out = append(p.out, "true"...)
	case "false", "False", "FALSE":
		p.out = append(p.out, "false"...)
	case "null", "None", "NULL", "nil", "undefined", "NaN", "Infinity":
		p.out = append(p.out, "null"...)
	default:
		if p.eof() {
			return p.fail(atEOF)
		}
		p.i = start
		return p.fail(atSyntax)
	}
	return complete
}
