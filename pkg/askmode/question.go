package askmode

import "strings"

// catchUpPhrases mark a request to be caught up, in English and Korean.
var catchUpPhrases = []string{
	"what did i miss", "what have i missed", "what i missed", "catch me up", "fill me in", "bring me up to speed",
	"놓친", "놓쳤", "못 들었", "못들었", "따라잡",
}

// IsCatchUp reports whether q asks to be caught up on what the asker
// missed ("what did I miss?", "내가 놓친 거 알려줘") rather than asking
// about a subject.
func IsCatchUp(q string) bool {
	q = strings.Join(strings.Fields(strings.ToLower(q)), " ")
	for _, p := range catchUpPhrases {
		if strings.Contains(q, p) {
			return true
		}
	}
	return false
}

// OfQuestion is the mode a spoken question asks for: CatchUp when it asks
// to be caught up, Answer otherwise.
func OfQuestion(q string) Mode {
	if IsCatchUp(q) {
		return CatchUp
	}
	return Answer
}
