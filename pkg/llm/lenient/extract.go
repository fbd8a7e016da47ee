package lenient

import (
	"encoding/json"
	"strings"
)

// maxCandidates bounds how many opening brackets Extract tries per region.
const maxCandidates = 64

// Extract returns the first JSON object or array in text, repaired (see
// the package documentation). Code fences are looked into first; within a
// region, the candidate that covers the most text wins, so a stray "[1]"
// in the prose before the answer does not hide it. A repaired fragment
// that keeps nothing (such as "{" alone) does not count. The result is
// always valid JSON; ErrNoJSON means nothing usable was found.
func Extract(text string) (json.RawMessage, error) {
	text = strings.ToValidUTF8(text, "\uFFFD")
	for _, region := range fenced(text) {
		if raw, ok := best(region); ok {
			return raw, nil
		}
	}
	if raw, ok := best(text); ok {
		return raw, nil
	}
	return nil, ErrNoJSON
}

// fenced returns the contents of the ``` code fences in text, in order; an
// unclosed fence runs to the end. As in Markdown, a fence starts a line
// (after optional blanks), so backticks inside a JSON string do not end
// the block that holds it. A language tag after the fence needs no special
// care: the search for the first bracket skips it.
func fenced(text string) []string {
	var out []string
	for {
		i := fenceAt(text, true)
		if i < 0 {
			return out
		}
		rest := text[i+3:]
		end := fenceAt(rest, false)
		if end < 0 {
			return append(out, rest)
		}
		out = append(out, rest[:end])
		text = rest[end+3:]
	}
}

// fenceAt returns the index of the first ``` in s that only blanks
// separate from the start of its line, or -1; atLineStart says whether s
// itself starts a line.
func fenceAt(s string, atLineStart bool) int {
	for off := 0; ; {
		i := strings.Index(s[off:], "```")
		if i < 0 {
			return -1
		}
		i += off
		j := i
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
		if (j == 0 && atLineStart) || (j > 0 && (s[j-1] == '\n' || s[j-1] == '\r')) {
			return i
		}
		off = i + 3
	}
}

// best parses a value at each '{' or '[' of s and keeps the one that
// covers the most text.
func best(s string) (json.RawMessage, bool) {
	var (
		out  []byte
		span int
	)
	for i, tries := 0, 0; i < len(s) && tries < maxCandidates; tries++ {
		j := strings.IndexAny(s[i:], "{[")
		if j < 0 {
			break
		}
		start := i + j
		v, n, ok := parse(s[start:])
		if !ok || !json.Valid(v) {
			i = start + 1
			continue
		}
		if n > span {
			out, span = v, n
		}
		i = start + max(n, 1)
	}
	return out, out != nil
}
