package convmemory

import "strings"

// Turns are stored as level-0 node text "speaker<TAB>text"; the speaker
// has no tabs or line breaks.
const speakerSep = "\t"

func encodeTurn(speaker, text string) string {
	return cleanSpeaker(speaker) + speakerSep + text
}

func decodeTurn(s string) (speaker, text string) {
	sp, txt, ok := strings.Cut(s, speakerSep)
	if !ok {
		return "", s
	}
	return sp, txt
}

func cleanSpeaker(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// renderTurn is a turn as the model sees it: "speaker: text".
func renderTurn(speaker, text string) string {
	if speaker == "" {
		return text
	}
	return speaker + ": " + text
}
