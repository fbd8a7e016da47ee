package prdoc

import (
	"regexp"
	"strings"
)

// maxActionWords is the most words an action item's text keeps.
const maxActionWords = 24

// clauseRE finds clause boundaries: commas, semicolons and dashes.
var clauseRE = regexp.MustCompile(`[,;:]\s|\s[–—-]\s`)

// commitment trims an action sentence to the clause holding its
// commitment: from the clause boundary before the first action cue to
// the one after it (when the clause says enough on its own), at most
// maxActionWords words.
func commitment(s sentence) string {
	from, to := len(s.norm), 0
	for _, re := range actionCues {
		if loc := re.FindStringIndex(s.norm); loc != nil && loc[0] < from {
			from, to = loc[0], loc[1]
		}
	}
	text := s.text
	if to > 0 && len(s.norm) == len(s.text) {
		start := 0
		for _, b := range clauseRE.FindAllStringIndex(s.norm[:from], -1) {
			start = b[1]
		}
		end := len(s.text)
		if b := clauseRE.FindStringIndex(s.norm[to:]); b != nil {
			if clause := s.norm[start : to+b[0]]; len(strings.Fields(clause)) >= 4 {
				end = to + b[0]
			}
		}
		text = strings.TrimSpace(s.text[start:end])
	}
	return upperFirst(strings.TrimRight(capWords(text), ",;: "))
}

// capWords keeps the first maxActionWords words of an action item's text.
func capWords(text string) string {
	if ws := strings.Fields(text); len(ws) > maxActionWords {
		return strings.Join(ws[:maxActionWords], " ") + " …"
	}
	return text
}
