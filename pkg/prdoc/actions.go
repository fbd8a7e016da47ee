package prdoc

import (
	"regexp"
	"strings"
	"time"
)

// maxActionWords is the most words an action item's text keeps.
const maxActionWords = 24

// clauseRE finds clause boundaries: commas, semicolons and dashes.
var clauseRE = regexp.MustCompile(`[,;:]\s|\s[–—-]\s`)

// commitment trims an action sentence to the clause holding its
// commitment: from the clause boundary before the first action cue to
// the one after it (when the clause says enough on its own), at most
// maxActionWords words. The clause before stays when the commitment
// refers back to it ("the launch dashboard, I'll have it ready by …"),
// and a Korean sentence, whose object comes before its verb and may
// hold commas ("장애 공지 템플릿 한국어, 영어로 3월 27일까지 준비할게요"), loses
// only its leading interjection.
func commitment(s sentence) string {
	from, to := len(s.norm), 0
	for _, re := range actionCues {
		if loc := re.FindStringIndex(s.norm); loc != nil && loc[0] < from {
			from, to = loc[0], loc[1]
		}
	}
	text := s.text
	if to > 0 && len(s.norm) == len(s.text) {
		var bounds []int
		for _, b := range clauseRE.FindAllStringIndex(s.norm[:from], -1) {
			bounds = append(bounds, b[1])
		}
		start, nb := 0, len(bounds)
		if nb > 0 {
			start = bounds[nb-1]
		}
		switch {
		case hasHangul(s.norm[from:to]):
			start = 0
			if loc := koreanLeadRE.FindStringIndex(s.norm); loc != nil && loc[1] <= from {
				start = loc[1]
			}
		case nb > 0 && pronounRE.MatchString(s.norm[from:min(to+12, len(s.norm))]):
			// The clause before names what "it" is, unless it is an
			// interjection ("Okay, I'll send it tomorrow").
			before := 0
			if nb > 1 {
				before = bounds[nb-2]
			}
			if len(termSet(s.norm[before:bounds[nb-1]])) >= 2 {
				start = before
			}
		}
		end := len(s.text)
		for _, b := range clauseRE.FindAllStringIndex(s.norm[to:], -1) {
			if monthDayRE.MatchString(s.norm[to+b[1]:]) {
				continue // "by Friday, March 13" is one date
			}
			if listEnd(s.norm[to+b[1]:]) {
				break // "the deck, the notes and the budget" is one list
			}
			if clause := s.norm[start : to+b[0]]; len(strings.Fields(clause)) >= 4 {
				end = to + b[0]
			}
			break
		}
		text = strings.TrimSpace(s.text[start:end])
		if loc := leadConjRE.FindStringIndex(strings.ToLower(text)); loc != nil && loc[1] < len(text) {
			text = text[loc[1]:]
		}
	}
	return upperFirst(strings.TrimRight(capWords(text), ",;: "))
}

// listEnd reports whether rest, what follows a comma, ends a list the
// clause before it begins: a last clause of a few words with "and".
func listEnd(rest string) bool {
	return !clauseRE.MatchString(rest) && len(strings.Fields(rest)) <= 8 && strings.Contains(" "+rest+" ", " and ")
}

var (
	// pronounRE finds an object that refers back to an earlier clause.
	pronounRE = regexp.MustCompile(`\b(it|them)\b`)
	// koreanLeadRE is a Korean sentence's leading interjection.
	koreanLeadRE = regexp.MustCompile(`^((네|예|아|음|어|자|좋아요|좋습니다|알겠습니다|그럼|그러면|그리고)[,.!]?\s+)+`)
	// monthDayRE is a month and day at the start of a clause.
	monthDayRE = regexp.MustCompile(`^` + monthDayPattern + `\b`)
	// leadConjRE is a conjunction a clause kept whole starts with.
	leadConjRE = regexp.MustCompile(`^(and|so|but|then|also)\s+`)
)

// vague reports whether an action item's text leaves what the task is to
// the sentence before it: it opens with a commitment whose object is a
// pronoun ("I'll send it tomorrow", "Can you do that by Friday?"), or, in
// Korean, no word is marked as its object or topic ("다음 주 화요일까지
// 보내 주세요" after "63명에게 안내 메일 보내기로 할게요"). Such an item
// reads with the sentence before it in the turn.
func vague(text string) bool {
	norm := normalize(text)
	if hasHangul(norm) {
		for _, w := range strings.Fields(norm) {
			w = strings.TrimRight(w, ",.!?")
			if objectRE.MatchString(w) && !selfRE.MatchString(w) {
				return false
			}
		}
		return true
	}
	return referringRE.MatchString(norm)
}

var (
	// referringRE is a commitment whose object is a pronoun.
	referringRE = regexp.MustCompile(`^(and |so |ok |okay )?(can |could |would )?(i'll|i will|i'm going to|i am going to|i'm gonna|i can|let me|you|we'll|we will)\s+(\w+\s+)?(it|that|this|them|those)\b`)
	// objectRE is a Korean word of two or more syllables marked as an
	// object or a topic; selfRE the speakers' own pronouns, which name no
	// task.
	objectRE = regexp.MustCompile(`^[\p{Hangul}a-z0-9]\S*(을|를|은|는|도)$`)
	selfRE   = regexp.MustCompile(`^(저|제|나|내|우리|저희|그건|이건|그거는|이거는)(는|은|도)$`)
)

// weakCommitment reports whether an action sentence commits nobody to
// anything a reviewer could check: it hedges ("Maybe I'll ask Carlos
// about the filters", "I guess I'll find out"), only says what "we"
// will do ("we'll make huge profits", "we need to do the function key
// thing"), only names someone's duty ("I am responsible for User
// Interface Design.", "저는 UI 담당이에요"; see dutyOnly) or commits to
// something said in the meeting itself ("Let me ask my question once
// more", "I'll get to that in a moment", "질문 하나 드릴게요"); and it
// names no due date and is not labelled as an action item.
func weakCommitment(s sentence, request bool, date time.Time) bool {
	if actionLabelRE.MatchString(s.norm) {
		return false
	}
	weOnly := weCommitRE.MatchString(s.norm) && !request && !anyMatch(firstPersonCues, s.norm)
	if !hedgeRE.MatchString(s.norm) && !weOnly && !dutyOnly(s) && !inMeetingRE.MatchString(s.norm) {
		return false
	}
	due, _ := findDue(s, date)
	return due == ""
}

// dutyOnly reports whether a sentence's only action cue names a duty
// (dutyCues) that it gives no future: "That will be the assignment for
// next week" and "이건 민준 님 담당으로 할게요" commit someone, "My fellow
// minister is in charge of the program" does not.
func dutyOnly(s sentence) bool {
	if !anyMatch(dutyCues, s.norm) || futureRE.MatchString(s.norm) {
		return false
	}
	return !anyMatch(taskCues, s.norm)
}

var (
	// futureRE gives a sentence a future: a modal, "you're" (a duty
	// given to someone), or a Korean commitment, request or deadline.
	futureRE = regexp.MustCompile(`\b(will|'ll|going to|gonna|need to|needs to|have to|has to|should|must|you're|you are)\b|게요|께요|겠|주세요|주시|까지`)
	// inMeetingRE commits to something done in the meeting itself:
	// asking, raising or coming back to a point, writing on the board,
	// sharing a screen.
	inMeetingRE = regexp.MustCompile(`\bask\s+((a|my|the|another|one more|this|that|a few|some|one)\s+)?(\w+\s+)?questions?\b|\bask\s+(it\s+)?again\b|\blet me\s+(ask|bring up|show|explain|start|begin|go back|read|recap|summari[sz]e|add|be clear)\b|\b(get|come back|return)\s+to\s+(that|it|this)\s+(later|shortly|in a)\b|\btalk (to you )?(more )?about (it|that|this) later\b|\bwrite (it )?down here\b|\bshare my screen\b|질문(을|도)?\s*(하나|좀|몇 가지)?\s*(드릴게요|드리겠습니다|할게요|하겠습니다)|여쭤\s?(볼게요|보겠습니다)|(잠시 후에?|이따가)\s.*(말씀|설명)\s?드릴게요|화면\s?(을\s)?공유할게요`)
)

// unownedRequest reports whether a request to someone (sentence s of
// turns[i], not a commitment of the speaker's own) is no action item of
// its own: it names nobody and states no due date, and the reply does not
// take it on, or takes it on in a commitment that names the task, which
// is the item. Meetings are full of "you" that ask nothing of anyone
// ("You have to make separate queries every time.", "You'll get feedback
// from these guys.", "How much better can you make it?"); a request taken
// on ("Can you check the booking?" — "Sure.") or addressed by name ("민준
// 님, 다음 주 화요일까지 보내 주세요") stays. reply is the reply's index in
// turns (-1: none), whose commitments to "it" alone the request item
// covers.
func unownedRequest(turns []Turn, i int, s sentence, speakers []string, date time.Time) (unowned bool, reply int) {
	reply, accepted, committed := replyTakesOn(turns, i)
	if anyMatch(firstPersonCues, s.norm) || actionLabelRE.MatchString(s.norm) || namedSpeaker(s, speakers, turns[i].Speaker) != "" {
		return false, reply
	}
	if due, _ := findDue(s, date); due != "" {
		return false, reply
	}
	return !accepted || committed, reply
}

// replyTakesOn finds the reply to turns[i] (replyTo; -1: none) and
// reports whether it takes a request on: it opens by accepting ("Sure.",
// "OK, by Friday", "네, 알겠습니다") or commits its speaker ("I'll send it
// out to the list"), committed when to a task the commitment names, not
// to "it" alone.
func replyTakesOn(turns []Turn, i int) (reply int, accepted, committed bool) {
	reply = replyTo(turns, i)
	if reply < 0 {
		return -1, false, false
	}
	ss := sentences(turns[reply].Text)
	accepted = len(ss) > 0 && acceptRE.MatchString(ss[0].norm)
	for _, r := range ss {
		if commitRE.MatchString(r.norm) {
			accepted = true
			committed = committed || anyMatch(actionCues, r.norm) && !vague(commitment(r))
		}
	}
	return reply, accepted, committed
}

// acceptRE opens a reply that takes a request on; a bare "yeah" in a
// meeting acknowledges more often than it accepts.
var acceptRE = regexp.MustCompile(`^((yeah|yes|ok|okay)[,.!]?\s+)?((ok|okay|sure|alright|all right|yes|yep|will do|no problem|of course|certainly|absolutely|fine)\b|(네|예)` + hangulEnd + `|알겠|그럴게요|좋아요|좋습니다)`)

// weCommitRE is what "we" will, should or need to do.
var weCommitRE = regexp.MustCompile(`\bwe\s*(will|'ll|should|need to|have to|must|are going to|'re going to|are gonna|'re gonna)\b`)

// capWords keeps the first maxActionWords words of an action item's text.
func capWords(text string) string {
	if ws := strings.Fields(text); len(ws) > maxActionWords {
		return strings.Join(ws[:maxActionWords], " ") + " …"
	}
	return text
}

// newActionCollector collects up to n action items; of two items for one
// owner that share most of their terms (a task taken on during the
// discussion and read out again in the recap: "클라이언트는 배너랑 diff
// 화면까지 해서 3월 20일까지 할게요." and "…, conflict 배너랑 diff 화면 3월
// 20일까지, …") only the better-scored one is kept.
func newActionCollector(n int) *collector[ActionItem] {
	c := newCollector(n, func(a ActionItem) string { return a.Text })
	c.same = func(a, b ActionItem) bool { return a.Owner == b.Owner && sameTask(termSet(a.Text), termSet(b.Text)) }
	return c
}

// sameTask reports whether two action items' sorted term sets name one
// task: they share at least sameTaskTerms terms, and at least a third
// of the smaller set's.
func sameTask(a, b []string) bool {
	n := shared(a, b)
	return n >= sameTaskTerms && 3*n >= min(len(a), len(b))
}

// sameTaskTerms is the fewest terms two items of one task share: a date
// alone ("3월", "20일") does not make two tasks one.
const sameTaskTerms = 3

// taskList splits a commitment that lists several tasks into one text
// per task, each with its own due date (the one its part says); nil when
// s lists fewer than two. text is the commitment's text (commitment(s)).
//
// In Korean the tasks are clauses joined by "-고," ("저는 diff 화면 디자인
// 3월 16일까지 받고, 2.1 로드맵에 CRDT 머지 올리고, war room 예약할게요."):
// each but the last in its to-do form, the verb's "고" made "기" ("…3월
// 16일까지 받기", "2.1 로드맵에 CRDT 머지 올리기"), the last as said ("war
// room 예약할게요"), the speaker's "저는"/"제가" left out. A clause has at
// least two words (an object or a time, and the verb), so a list of nouns
// with "하고" ("David하고, Priya하고 …") is not split.
//
// In English they are verb phrases after one "I'll" (or "let me"), with a
// comma between the first two: "I'll book the room, update the roadmap
// and send the notes by Friday." is "Book the room", "Update the
// roadmap" and "Send the notes by Friday". Every part starts with a
// task's verb (taskVerbs) and has a word after it, so "I'll send the
// deck, the notes and the budget" stays one task.
func taskList(s sentence, text string) []string {
	if hasHangul(text) {
		return koreanTaskList(text)
	}
	loc := ownCommitmentRE.FindStringIndex(s.norm)
	if loc == nil || len(s.norm) != len(s.text) {
		return nil
	}
	rest := strings.TrimRight(s.text[loc[1]:], ". ")
	parts := taskSepRE.Split(rest, -1)
	if len(parts) < 2 {
		return nil
	}
	if last, final, ok := strings.Cut(parts[len(parts)-1], " and "); ok {
		parts = append(parts[:len(parts)-1], last, final)
	}
	for k, p := range parts {
		p = strings.TrimSpace(p)
		if len(strings.Fields(p)) < 2 || !taskVerbRE.MatchString(strings.ToLower(p)) {
			return nil
		}
		parts[k] = p
	}
	return parts
}

// koreanTaskList is taskList for a Korean commitment.
func koreanTaskList(text string) []string {
	parts := taskSepRE.Split(strings.TrimRight(text, ". "), -1)
	var tasks []string
	for k, p := range parts {
		p = strings.TrimSpace(p)
		words := strings.Fields(p)
		if len(words) < 2 {
			return nil
		}
		if k == len(parts)-1 {
			tasks = append(tasks, p)
			break
		}
		last := words[len(words)-1]
		stem, ok := strings.CutSuffix(last, "고")
		if !ok || stem == "" || !hasHangul(stem) || goNouns[last] {
			return nil
		}
		words[len(words)-1] = stem + "기"
		tasks = append(tasks, strings.Join(words, " "))
	}
	if len(tasks) < 2 {
		return nil
	}
	tasks[0] = ownSubjectRE.ReplaceAllString(tasks[0], "")
	return tasks
}

var (
	// goNouns end in "고" without being a verb's "-고" ("광고", "보고").
	goNouns = textutilSet("광고 최고 참고 재고 창고 경고 사고 신고 보고 원고 공고 회고 제고 엠바고 그리고 그러고")
	// ownSubjectRE is the speaker naming themself at a sentence's start.
	ownSubjectRE = regexp.MustCompile(`^(저는|제가|저도|나는|내가)\s+`)
	// ownCommitmentRE is an English commitment's opening ("I'll", "let
	// me go ahead and"), taskVerbRE a task's verb opening a phrase.
	ownCommitmentRE = regexp.MustCompile(ownCommitment)
	taskVerbRE      = regexp.MustCompile(`^` + taskVerbs + `\b`)
)
