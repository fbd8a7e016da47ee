package segment

import "strings"

// cueWords is how many words at the start of a turn are searched for cue
// phrases.
const cueWords = 25

// cuePhrase is a phrase that tends to open a new topic ("let's move on",
// "다음 안건"), with its strength in [0, 1].
type cuePhrase struct {
	words  []string
	weight float64
}

// cuePhrases, English words matched exactly, Hangul words by prefix
// ("넘어가" matches "넘어가겠습니다").
var cuePhrases = parseCues(map[string]float64{
	// English: explicit transitions
	"move on": 1, "moving on": 1, "questions on": 1, "questions from": 1, "question on": 1,
	"questions now on": 1, "questions now from": 1,
	"agenda": 1, "turn to": 0.8, "go on to": 0.8, "next item": 1, "next topic": 1, "next point": 1,
	"next question": 1, "next thing": 1, "let s talk": 0.8, "let s move": 1, "let s discuss": 0.8,
	"let s go": 0.6, "let s look": 0.6, "let s start": 0.8, "talk about": 0.6, "presentation": 0.7,
	"finally": 0.6, "lastly": 0.6, "first of all": 0.5, "another thing": 0.5, "other thing": 0.4,
	// English: weaker openers
	"thank you": 0.5, "thanks": 0.4, "now": 0.3, "next": 0.4, "first": 0.3,
	// Korean
	"다음 안건": 1, "안건": 1, "넘어가": 1, "넘어갈": 1, "다음 주제": 1, "주제": 0.6, "다음으로": 0.8,
	"마지막으로": 0.6, "발표": 0.6, "질문": 0.5, "얘기해": 0.5, "논의해": 0.6, "이야기해": 0.5,
	"감사합니다": 0.5, "다음": 0.4, "이제": 0.3, "그럼": 0.2,
})

func parseCues(m map[string]float64) []cuePhrase {
	out := make([]cuePhrase, 0, len(m))
	for p, w := range m {
		out = append(out, cuePhrase{words: strings.Fields(p), weight: w})
	}
	return out
}

// cueScore is the combined strength of the cue phrases in the first words
// of a turn: 1 − Π(1 − weight) over the phrases found, in [0, 1].
func cueScore(words []word) float64 {
	head := words[:min(len(words), cueWords)]
	miss := 1.0
	for _, c := range cuePhrases {
		if containsPhrase(head, c.words) {
			miss *= 1 - c.weight
		}
	}
	return 1 - miss
}

func containsPhrase(words []word, phrase []string) bool {
	for i := 0; i+len(phrase) <= len(words); i++ {
		match := true
		for j, p := range phrase {
			w := words[i+j]
			if w.hangul && !strings.HasPrefix(w.surface, p) || !w.hangul && w.surface != p {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
