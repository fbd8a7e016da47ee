package prdoc

import (
	"regexp"
	"slices"

	"github.com/mithub/mithub/pkg/textutil"
)

// answerTurns is how many turns after a question its answer is looked for
// in.
const answerTurns = 4

// trivialQuestionRE matches questions that ask nothing about the
// meeting's subject: procedure, backchannel and tag questions, a
// statement with a tag included ("That means twenty-five buttons in
// total, doesn't it?", "…, right?"); "Which version is it?" is no tag.
var trivialQuestionRE = regexp.MustCompile(`^(so\s+)?(any|are there any|do you have any|anyone have any|any other|any more|anything else|any comments|any thoughts)\b|^(so\s+)?(is|are)\s+there\s+(anything|any\s+\w+)\s+(else|still|left|open|more)\b|(다른|남은)\s*(거|것|안건|이슈|질문)\s*(있|없)|\b(questions|any comments|anything else)\s*\?$|^(is that|was that|does that|did that|isn't it|is it|right|okay|ok|really|sorry|pardon|huh|yeah|what|why not|like what|how so|you know|can you hear me)\b[^a-z]*\??$|^(what|who|where|how)('s| is| was)?\s+(that|this|it|he|she)\s*\?$|(질문|의견)\s*(있|없)|그렇죠\s*\?|맞죠\s*\?|그래요\s*\?|,\s*(does|doesn't|did|didn't|is|isn't|was|wasn't|are|aren't|has|hasn't|have|haven't|can|can't|will|won't|would|wouldn't|do|don't|should|shouldn't)\s+(it|he|she|they|we|you|that|there|i)\s*\?$|\s(doesn't|didn't|isn't|wasn't|aren't|hasn't|haven't|can't|won't|wouldn't|don't|shouldn't)\s+(it|he|she|they|we|you|that|there|i)\s*\?$|,\s*(right|ok|okay|you know|yeah|eh|huh|no|don't you think|do you know)\s*\?$`)

// openQuestion reports whether a question asks about the meeting's
// subject: three content terms or more and not trivial.
func openQuestion(s sentence) bool {
	return s.terms >= 3 && !trivialQuestionRE.MatchString(s.norm)
}

// answered reports whether the question s of turns[i] is answered in the
// next answerTurns turns: another speaker says a sentence that is no
// question and has three content terms or more, in the reply (the first
// turn by another speaker, within replyTurns) in whatever words ("Who
// owns the release?" — "서연 님이 해 주세요. 스토어 쪽은 서연 님 혼자
// 만지는 걸로."), later only sharing a content term with the question. A
// reply that puts the question off or does not know ("그것도 2.1 계획할 때
// 정해요", "I don't know yet") leaves it open.
func answered(turns []Turn, i int, s sentence) bool {
	q := termSet(s.text)
	reply := true
	yesNo := yesNoQuestion(s)
	for j := i + 1; j < len(turns) && j <= i+answerTurns; j++ {
		if turns[j].Speaker == turns[i].Speaker {
			continue
		}
		rs := sentences(turns[j].Text)
		if yesNo && reply && j <= i+replyTurns && len(rs) > 0 && yesNoAnswerRE.MatchString(rs[0].norm) &&
			!slices.ContainsFunc(rs, func(r sentence) bool { return anyMatch(deferCues, r.norm) || anyMatch(openCues, r.norm) }) {
			return true
		}
		for _, r := range rs {
			if anyMatch(deferCues, r.norm) || anyMatch(openCues, r.norm) {
				return false
			}
			if r.terms < 3 || r.isQuestion() {
				continue
			}
			if reply && j <= i+replyTurns {
				return true
			}
			for _, w := range textutil.Terms(nil, r.text) {
				if _, ok := slices.BinarySearch(q, w); ok {
					return true
				}
			}
		}
		reply = false
	}
	return false
}

// yesNoQuestion reports whether s asks for a yes or a no: an English
// question that opens with its verb ("Is the casing rubber?", "Did you
// send it?") or has no question word ("You're gonna talk about Aurora
// stuff, per se?"), a Korean one without a question word ("배포 전에 QA
// 끝나나요?"); a choice between two ("…, or is that still a
// possibility?") is none.
func yesNoQuestion(s sentence) bool {
	if choiceRE.MatchString(s.norm) {
		return false
	}
	if hasHangul(s.norm) {
		return !koreanQuestionWordRE.MatchString(s.norm)
	}
	return auxOpenRE.MatchString(s.norm) || !questionWordRE.MatchString(s.norm)
}

var (
	choiceRE             = regexp.MustCompile(`\bor\b|아니면|또는`)
	auxOpenRE            = regexp.MustCompile(`^((so|and|but|well|okay|ok|then)[, ]+)*(is|are|was|were|am|do|does|did|can|could|will|would|should|shall|have|has|had|may|might|must|isn't|aren't|wasn't|don't|doesn't|didn't|can't|couldn't|won't|wouldn't|shouldn't|haven't|hasn't)\b`)
	questionWordRE       = regexp.MustCompile(`\b(what|who|whom|whose|which|when|where|why|how)\b`)
	koreanQuestionWordRE = regexp.MustCompile(`누가|누구|언제|어디|무엇|뭐|뭘|왜|어떻게|어떤|어느|얼마|몇`)
	// yesNoAnswerRE opens a reply that answers yes or no ("네," but not
	// "예산은 …").
	yesNoAnswerRE = regexp.MustCompile(`^(yes|yeah|yep|yup|no|nope|sure|right|exactly|correct|definitely|absolutely|of course|not really|i think so|i don't think so)\b|^(네|예|아니요|아뇨|아니에요|맞아요|그렇죠|그럼요)` + hangulEnd)
)

// personalDoubt reports whether the only open cue of s is a doubt that
// does not say what is in doubt for the meeting: the speaker's own ("I'm
// not sure how much I should talk about it", "I'm not sure if I wanted
// it there") or one of fewer than three content terms ("Cuz I'm not sure
// yet.", "I'm not sure what this'll mean."). "I'm not sure how well a
// scrolling wheel would work" stays an open question.
func personalDoubt(s sentence) bool {
	loc := unsureRE.FindStringIndex(s.norm)
	if loc == nil {
		return false
	}
	for _, re := range openCues {
		if re != unsureRE && re.MatchString(s.norm) {
			return false
		}
	}
	rest := s.norm[loc[1]:]
	if selfDoubtRE.MatchString(rest) {
		return true
	}
	n := 0
	for _, w := range textutil.Terms(nil, rest) {
		if !contractionTails[w] {
			n++
		}
	}
	return n < 3
}

// contractionTails are what textutil.Terms leaves of "they're", "this'll".
var contractionTails = map[string]bool{"ll": true, "re": true, "ve": true, "d": true, "s": true, "t": true, "m": true}

// selfDoubtRE is the speaker in the clause of a doubt.
var selfDoubtRE = regexp.MustCompile(`\b(i|i'm|i've|i'd|i'll|me|my|myself)\b`)
