package meetingctx

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// speakerNamed sets out[i] (zeroed, one per turn) to 1 for each turn
// whose speaker the query names, else leaves it 0: the speaker's name
// (or, without one, its id), compared as lowercase words, is a run of whole words of the query ("Project Manager" in "What
// did the project manager think …"; "Grad E"). A Korean name also counts
// when it opens a word of the query (김민수 in "김민수님이 …") and, for a
// three-syllable name, so do its last two syllables (민수 in "민수 씨는
// …"), the way people address each other. A name of one letter names no
// one.
func speakerNamed(out []float64, q TurnQuery) []float64 {
	query := " " + foldWords(q.Query) + " "
	if strings.TrimSpace(query) == "" {
		return out
	}
	// A meeting has few speakers: a list beats hashing every turn's name.
	type seenSpeaker struct {
		name, id string
		named    bool
	}
	var seen []seenSpeaker
	for i := range q.Turns {
		t := &q.Turns[i]
		k := 0
		for k < len(seen) && (seen[k].name != t.SpeakerName || seen[k].id != t.SpeakerID) {
			k++
		}
		if k == len(seen) {
			name := t.SpeakerName
			if strings.TrimSpace(name) == "" {
				name = t.SpeakerID
			}
			seen = append(seen, seenSpeaker{t.SpeakerName, t.SpeakerID, namesSpeaker(query, foldWords(name))})
		}
		if seen[k].named {
			out[i] = 1
		}
	}
	return out
}

// NamesSpeaker reports whether text names the speaker called name, by the
// rule the turn search's speaker feature reads a question with (see
// speakerNamed): "민준 님, 보내 주세요" names 박민준.
func NamesSpeaker(text, name string) bool {
	return namesSpeaker(" "+foldWords(text)+" ", foldWords(name))
}

// namesSpeaker reports whether query (folded, with a space at each end)
// names the folded name.
func namesSpeaker(query, name string) bool {
	if utf8.RuneCountInString(name) < 2 {
		return false
	}
	if strings.Contains(query, " "+name+" ") {
		return true
	}
	if r, _ := utf8.DecodeRuneInString(name); !unicode.Is(unicode.Hangul, r) || strings.Contains(name, " ") {
		return false
	}
	if strings.Contains(query, " "+name) {
		return true
	}
	if rs := []rune(name); len(rs) == 3 {
		return strings.Contains(query, " "+string(rs[1:]))
	}
	return false
}

// foldWords lowercases s and joins its words (runs of letters and
// digits) with single spaces.
func foldWords(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}
