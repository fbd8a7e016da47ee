package prdoc

import (
	"regexp"
	"strings"
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
