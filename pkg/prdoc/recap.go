package prdoc

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// Recaps. A meeting is often summed up near its end: someone announces
// the decisions or the action items and reads them out, one to a
// sentence ("첫째, 출시일은 3월 31일로 한 주 미뤘어요.", "Second, …";
// "David, 서버 쪽 필드 단위 머지 3월 18일까지, …"). That is the meeting's
// own list: a numbered sentence of a decisions recap is a decision as a
// labelled one is ("결정: …"), and a sentence of an action-items recap
// that opens by addressing a participant is that person's action item.

var (
	// decisionRecapRE announces the decisions ("결정사항 정리할게요",
	// "let me recap what we decided").
	decisionRecapRE = regexp.MustCompile(`결정\s*사항|결정한\s*(것|거|내용)|\b(recap|sum up|summari[sz]e|go over|go through|run through)\b.*\b(decisions|decided|agreed)\b|\bthe decisions (are|were)\b`)
	// actionRecapRE announces the action items ("action item 읽을게요",
	// "let's go through the action items").
	actionRecapRE = regexp.MustCompile(`(action\s*items?|액션\s*아이템|할\s*일).*(읽|정리|확인|짚|말씀|볼게|보겠)|\b(recap|go over|go through|read out|run through|list)\b.*\baction items?\b|^action items?\b`)
	// ordinalRE opens a numbered point of a recap.
	ordinalRE = regexp.MustCompile(`^((첫|둘|셋|넷|다섯|여섯|일곱|여덟|아홉|열)째|마지막으로)\s*[,.:]?\s*|^(first(ly)?|second(ly)?|third(ly)?|fourth(ly)?|fifth(ly)?|sixth(ly)?|seventh|eighth|finally|lastly)\b\s*[,:]?\s*|^\d{1,2}[.)]\s+`)
	// addressRE is the words before the first comma of a sentence that
	// addresses someone ("David, …", "서연 님, …"), honorific apart.
	addressRE = regexp.MustCompile(`^([^,]{2,30}?)\s*(님|씨)?\s*,\s*`)
)

// recapTurns is how many turns after its announcement a recap lasts.
const recapTurns = 20

// recapBonus is added to the score of an action item read out in a recap,
// so the meeting's own list survives the cap.
const recapBonus = 2

// recapKind is what a recap reads out.
type recapKind int

const (
	recapNone recapKind = iota
	recapDecisions
	recapActions
)

// recap is the recap under way: who reads it, what and until which seq.
type recap struct {
	speaker string
	kind    recapKind
	until   int
}

// announceWords is the longest sentence that only announces a recap and
// is no item itself ("결정사항이랑 action item 정리할게요."); a longer one
// may say what was decided too ("Let me sum up: we agreed on the blue
// case and …").
const announceWords = 8

// announce starts a recap when sentence s of turn t announces one and
// reports whether it did. A labelled item ("결정사항: …", "액션 아이템:
// …") announces nothing.
func (r *recap) announce(t Turn, s sentence) bool {
	kind := recapNone
	switch {
	case labelRE.MatchString(s.norm) || actionLabelRE.MatchString(s.norm):
		return false
	case decisionRecapRE.MatchString(s.norm):
		kind = recapDecisions
	case actionRecapRE.MatchString(s.norm):
		kind = recapActions
	default:
		return false
	}
	*r = recap{speaker: t.Speaker, kind: kind, until: t.Seq + recapTurns}
	return true
}

// reading reports what the recap reads out in turn t: nothing unless the
// turn is its reader's and within it.
func (r *recap) reading(t Turn) recapKind {
	if r.kind == recapNone || t.Speaker != r.speaker || t.Seq > r.until {
		return recapNone
	}
	return r.kind
}

// numberedPoint returns the text of a numbered point ("첫째, 출시일은 …"
// → "출시일은 …") and whether s is one.
func numberedPoint(s sentence) (string, bool) {
	loc := ordinalRE.FindStringIndex(s.norm)
	if loc == nil || len(s.norm) != len(s.text) || loc[1] >= len(s.text) {
		return "", false
	}
	return upperFirst(s.text[loc[1]:]), true
}

// addressee returns the participant a sentence opens by addressing
// ("David, …" names David Park; "민준 님, …" 박민준), other than cur,
// and the rest of the sentence; "" when it addresses no one.
func addressee(s sentence, speakers []string, cur string) (name, rest string) {
	m := addressRE.FindStringSubmatchIndex(s.text)
	if m == nil || m[1] >= len(s.text) {
		return "", ""
	}
	called := strings.TrimSpace(s.text[m[2]:m[3]])
	for _, sp := range speakers {
		if sp == cur || utf8.RuneCountInString(sp) < 2 {
			continue
		}
		first, _, _ := strings.Cut(sp, " ")
		if strings.EqualFold(called, sp) || hasHangul(sp) && meetingctx.NamesSpeaker(called, sp) ||
			!hasHangul(sp) && utf8.RuneCountInString(first) >= 2 && strings.EqualFold(called, first) {
			return sp, upperFirst(s.text[m[1]:])
		}
	}
	return "", ""
}

// recapTask is one task of what a recap reads out to a person: its text,
// and the text its due date is read from.
type recapTask struct {
	text, due string
}

var (
	// taskSepRE separates the tasks of one sentence: those a recap reads
	// out ("머지 3월 18일까지, PgBouncer staging 적용 3월 16일까지, …") and
	// those a commitment lists (taskList).
	taskSepRE = regexp.MustCompile(`\s*[,;]\s+(?:and\s+|그리고\s+)?`)
	// dayRE is a day said without its month in a Korean list of dates
	// ("부하 테스트 재실행 17일", "회귀 테스트 20일부터 26일").
	dayRE = regexp.MustCompile(`(^|[^\d월\s]\s*|\s)(\d{1,2})일`)
	// withinDaysRE is a number of days, not a day ("3일 안에").
	withinDaysRE = regexp.MustCompile(`\d+\s*일\s*(안에|이내|내로|뒤|후|간|동안)`)
	// monthRE is the month of a Korean date ("3월 17일").
	monthRE = regexp.MustCompile(`(\d{1,2})월\s*\d{1,2}일`)
)

// recapTasks splits what a recap reads out to one person into tasks, one
// per stated date: at commas, when at least two parts state a date (a
// part without one belongs with the next, the last with the one before);
// otherwise it is one task. In a Korean list a day said without its month
// ("17일") has the month of the date before it, and a range ("20일부터
// 26일") is due at its end.
func recapTasks(rest string) []recapTask {
	whole := []recapTask{{text: rest, due: rest}}
	parts := taskSepRE.Split(strings.TrimRight(rest, ". "), -1)
	if len(parts) < 2 {
		return whole
	}
	var tasks []recapTask
	pending, month, dated := "", "", 0
	for _, p := range parts {
		text := strings.TrimSpace(pending + " " + p)
		pending = ""
		due := p
		if _, after, ok := strings.Cut(due, "부터"); ok {
			due = after
		}
		if m := monthRE.FindStringSubmatch(due); m != nil {
			month = m[1]
		} else if month != "" && !withinDaysRE.MatchString(due) {
			due = dayRE.ReplaceAllString(due, "${1}"+month+"월 ${2}일")
		}
		if d, _ := findDue(newSentence(due), time.Time{}); d == "" {
			pending = text + ","
			continue
		}
		dated++
		tasks = append(tasks, recapTask{text: text, due: due})
	}
	if dated < 2 {
		return whole
	}
	if pending != "" {
		last := &tasks[len(tasks)-1]
		last.text += ", " + strings.TrimSuffix(pending, ",")
	}
	return tasks
}
