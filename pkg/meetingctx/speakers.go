package meetingctx

import (
	"strings"
)

// Speaker is one participant's statistics and inferred role.
type Speaker struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Turns       int    `json:"turns"`
	Words       int    `json:"words"`
	TalkMS      int64  `json:"talk_ms"`
	Questions   int    `json:"questions"`
	Decisions   int    `json:"decisions"`
	LastSeq     int    `json:"last_seq"`
	LastSpokeMS int64  `json:"last_spoke_ms"`
	// Role is inferred by rules: facilitator, decision_maker, presenter,
	// participant or listener.
	Role string `json:"role"`
}

// speakerSet keeps stats in first-appearance order.
type speakerSet struct {
	order []*Speaker
	byID  map[string]*Speaker
}

func speakerKey(t Turn) string {
	if t.SpeakerID != "" {
		return t.SpeakerID
	}
	return t.SpeakerName
}

func (s *speakerSet) add(t Turn) {
	if s.byID == nil {
		s.byID = map[string]*Speaker{}
	}
	k := speakerKey(t)
	sp := s.byID[k]
	if sp == nil {
		sp = &Speaker{ID: k, Name: t.SpeakerName}
		s.byID[k] = sp
		s.order = append(s.order, sp)
	}
	if sp.Name == "" {
		sp.Name = t.SpeakerName
	}
	sp.Turns++
	sp.Words += countWords(t.Text)
	if t.EndMS > t.StartMS {
		sp.TalkMS += t.EndMS - t.StartMS
	}
	if isQuestion(t.Text) {
		sp.Questions++
	}
	if isDecision(t.Text) {
		sp.Decisions++
	}
	sp.LastSeq = t.Seq
	sp.LastSpokeMS = t.EndMS
}

func countWords(s string) int { return len(strings.Fields(s)) }

// koreanQuestionEndings mark a question without a question mark.
var koreanQuestionEndings = []string{"까요", "나요", "습니까", "을까", "어때", "어때요", "는지"}

func isQuestion(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") {
		return true
	}
	s = strings.TrimRight(s, ". ")
	for _, c := range koreanQuestionEndings {
		if strings.HasSuffix(s, c) {
			return true
		}
	}
	return false
}

var decisionCues = []string{"let's go with", "we'll go with", "we decided", "decision is", "agreed", "let's do",
	"we will", "we'll use", "결정", "하기로", "확정", "합의", "그렇게 하죠", "그걸로 가"}

func isDecision(s string) bool {
	l := strings.ToLower(s)
	for _, c := range decisionCues {
		if strings.Contains(l, c) {
			return true
		}
	}
	return false
}

// list returns copies with roles inferred from the whole meeting so far.
func (s *speakerSet) list(cursor int) []Speaker {
	out := make([]Speaker, len(s.order))
	totalTurns, totalWords := 0, 0
	for i, sp := range s.order {
		out[i] = *sp
		totalTurns += sp.Turns
		totalWords += sp.Words
	}
	inferRoles(out, totalTurns, totalWords)
	return out
}

// inferRoles: the one asking the most questions (and at least 3) facilitates;
// the one with the most decision cues (at least 2) decides; whoever holds
// the largest share of words (≥ 35%) with long turns presents; speakers
// under 5% of turns listen; everyone else participates.
func inferRoles(sps []Speaker, totalTurns, totalWords int) {
	if len(sps) == 0 {
		return
	}
	for i := range sps {
		sps[i].Role = "participant"
		if totalTurns > 20 && sps[i].Turns*20 < totalTurns {
			sps[i].Role = "listener"
		}
	}
	byMost := func(f func(Speaker) int, min int) int {
		best := -1
		for i, sp := range sps {
			if v := f(sp); v >= min && (best < 0 || v > f(sps[best])) {
				best = i
			}
		}
		return best
	}
	if i := byMost(func(s Speaker) int { return s.Words }, 1); i >= 0 && totalWords > 0 &&
		sps[i].Words*100 >= 35*totalWords && sps[i].Turns > 0 && sps[i].Words/sps[i].Turns >= 12 {
		sps[i].Role = "presenter"
	}
	if i := byMost(func(s Speaker) int { return s.Decisions }, 2); i >= 0 {
		sps[i].Role = "decision_maker"
	}
	if i := byMost(func(s Speaker) int { return s.Questions }, 3); i >= 0 {
		sps[i].Role = "facilitator"
	}
}
