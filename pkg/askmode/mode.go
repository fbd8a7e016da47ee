package askmode

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Mode is the kind of an ask: what its context is built for and how it is
// answered. Its value is the wire form of the ask's "mode" field.
type Mode string

// Modes of an ask.
const (
	// Answer answers a question from searched topics and recent turns.
	Answer Mode = "answer"
	// CatchUp tells the asker what was said in a period they missed.
	CatchUp Mode = "catch_up"
)

// Default is the mode of an ask that names none.
const Default = Answer

// modes lists every mode in documentation order.
var modes = [...]Mode{Answer, CatchUp}

// Modes returns every mode, Default first. The slice is the caller's.
func Modes() []Mode { return append([]Mode(nil), modes[:]...) }

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool {
	for _, v := range modes {
		if m == v {
			return true
		}
	}
	return false
}

// String returns m's wire form.
func (m Mode) String() string { return string(m) }

// maxQuoted bounds how much of an unknown mode an error repeats.
const maxQuoted = 20

// Parse returns the mode named s; the empty string is Default. An unknown
// name is an error that lists the valid ones and quotes at most the first
// 20 characters of s.
func Parse(s string) (Mode, error) {
	if s == "" {
		return Default, nil
	}
	if m := Mode(s); m.Valid() {
		return m, nil
	}
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("mode must be one of %s, not %q", strings.Join(names, ", "), quoted(s))
}

func quoted(s string) string {
	if utf8.RuneCountInString(s) <= maxQuoted {
		return s
	}
	return string([]rune(s)[:maxQuoted]) + "…"
}
