package prdoc

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/cleantext"
	"github.com/mithub/mithub/pkg/textutil"
)

// ownCommitment opens a speaker's commitment ("I'll", "let me", "go
// ahead and"); taskVerbs are the verbs of the tasks people take on.
const (
	ownCommitment = `\b(i'll|i will|i'm going to|i am going to|i can|i'm gonna|let me)\s+(go ahead and\s+)?`
	taskVerbs     = `(send|write|prepare|check|look into|make|do|finish|update|draft|schedule|contact|email|mail|call|review|fix|implement|test|create|set up|organi[sz]e|find|book|share|talk to|follow up|take care|put together|circulate|present|build|try|ask|get|bring|work on|investigate|sort out|figure out|run|collect|compile|summari[sz]e)`
)

// Cue rules, Korean and English. English patterns run on lowercased text
// with normalised apostrophes; Korean ones match word stems, so endings
// and particles may follow.
var (
	decisionCues = compile(
		// English
		`\b(we|we've|we have|i think we)\s+(all\s+)?(have\s+)?(decided|agreed|settled)\b`,
		`\bdecided\s+(to|that|on)\b`,
		`\b(let's|let us|we'll|we will|we should|we're going to|we are going to)\s+go\s+(with|for)\b`,
		`\b(the\s+)?(final\s+)?decision\s+(is|was|will be)\b`,
		`\bwe\s+(all\s+)?agree\b`,
		`\b(it's|that's|it is|that is)\s+(decided|settled|agreed|final)\b`,
		`\bso\s+(we'll|we will|we're going to)\s+(use|go|do|have|keep|make|stick|take|choose)\b`,
		`\b(we're|we are)\s+going\s+to\s+(use|stick with|keep|choose|take)\b`,
		`\blet's\s+(use|stick with|keep|choose|take)\b`,
		`\b(consensus|unanimous)\b`,
		`\bwe\s+(chose|picked|opted)\b`,
		// Korean
		`결정`, `확정`, `합의`, `채택`, `결론`,
		`하기로\s*(했|하|합|결정|정했|해요|하죠|하자)`,
		`기로\s*(했|합의|정했|결정)`,
		`(으로|로)\s*(하죠|합시다|하자|가죠|갑시다|가자|정했|정하죠|정합시다|결정)`,
		`그렇게\s*(하죠|합시다|하자|가죠|갑시다|진행하)`,
	)
	// taskCues commit someone to a task; dutyCues name a duty
	// ("responsible for", "in charge of", "담당"), a task only when the
	// sentence gives it a future (see dutyOnly); actionCues are both.
	taskCues = compile(
		// English: commitments and requests
		ownCommitment+taskVerbs+`\b`,
		`\b(you|he|she|they|we)\s*(will|'ll|should|need to|needs to|have to|has to|must)\s+(send|write|prepare|check|look into|make|do|finish|update|draft|schedule|contact|email|mail|call|review|fix|implement|test|create|set up|organi[sz]e|find|book|share|talk to|follow up|take care|put together|circulate|present|build|try|ask|get|bring|work on|investigate|sort out|figure out|run|collect|compile)\b`,
		`\b(can|could|would)\s+you\s+(please\s+)?(send|write|prepare|check|look|make|do|finish|update|draft|schedule|contact|email|mail|call|review|fix|implement|test|create|set up|organi[sz]e|find|book|share|talk|follow|take|put|circulate|present|build|try|ask|get|bring|work|investigate|sort|figure|run|collect)\b`,
		`\bplease\s+(send|write|prepare|check|look|make|do|finish|update|draft|schedule|contact|email|call|review|fix|implement|test|create|set up|find|book|share|follow|take)\b`,
		`\b(i'll|i will|i'm going to|i am going to|i'm gonna)\s+have\s+(it|that|this|them|those|the\s+\w+)\s+(ready|done|finished|sent|out)\b`,
		`\b(action item|to-do|todo|follow-up|follow up on|take care of)\b`,
		// Korean
		`(하겠습니다|할게요|할께요|하겠어요|해\s?볼게요|해\s?보겠습니다|드리겠습니다|드릴게요|맡겠습니다|맡을게요|준비하겠|정리하겠|공유하겠|보내겠|확인하겠|진행하겠)`,
		`(제가|저는|제\s?쪽에서|저희\s?팀이|저희가)\s.*(겠습니다|겠어요|게요)`,
		`(해\s?주세요|해\s?주시|해\s?줘|부탁드|부탁합|부탁해|해\s?주실)`,
		// A request with a deadline, whatever its verb ("화요일까지 메일
		// 보내 주세요"); without one, "보여 주세요" asks for now.
		`까지.*(주세요|주시겠|주실)`,
		`(맡아|맡기|액션\s?아이템)`,
		`까지\s*(해|보내|준비|정리|완료|제출|공유|작성|확인|마무리|올려)`,
	)
	dutyCues = compile(
		`\b(homework|assignment|assigned to|in charge of|responsible for)\b`,
		`(담당|숙제|할\s?일)`,
	)
	actionCues = append(slices.Clip(taskCues), dutyCues...)
	openCues   = append(compile(
		`\bopen question\b`,
		`\b(still|yet)\s+(need|have)\s+to\s+(decide|figure out|find out|check|discuss|see|think about|work out)\b`,
		`\b(to be decided|tbd|remains to be seen|we don't know yet|no decision yet|undecided|unresolved|pending)\b`,
		`\b(come back to|revisit|park|table)\s+(this|that|it)\b`,
		`아직\s*(결정|미정|모르|정해지|정하지|확실하지|논의)`, `아직\s*안\s*(정했|정해|정한|결정|나왔)`, `미정`, `확인이?\s*필요`, `논의가?\s*필요`,
		`추후\s*(논의|결정|검토)`, `다시\s*(논의|얘기|이야기)`, `고민해\s*(봐야|보죠|볼)`,
	), unsureRE)
	// unsureRE is a doubt voiced ("this is not clear yet because …",
	// "I'm not sure how well a scrolling wheel would work"): an open
	// cue like the others, but an open question only when it says what
	// is in doubt (see personalDoubt).
	unsureRE    = regexp.MustCompile(`\bnot\s+(sure|decided|clear)\s+(yet|whether|if|how|what|about)\b`)
	requestCues = compile(
		`\b(can|could|would)\s+you\b`, `\bplease\b`, `\byou\s*(will|'ll|should|need to|have to|must)\b`,
		// "…해 주세요", "보내 주세요", "알려 주시겠어요": any verb with 주다.
		`(주세요|주시겠|주시면|주실|해\s?줘|부탁)`,
	)
	// deferCues put a question off or do not know its answer.
	deferCues = compile(
		`\b(i don't know|i do not know|no idea|not sure|we'll see|let me check|i'll check|find out|(decide|discuss|talk about) (it |that |this )?later|later on|next (time|meeting))\b`,
		`모르겠|글쎄|나중에|다음\s*(번|회의)에|(정할|정해|결정할|결정해|논의할|얘기할)\s*(게요|께요|요|거예요|겁니다|예정)|확인해\s*(볼게요|보겠|봐야)|알아(볼게요|보겠)`,
	)
	firstPersonCues = compile(
		`\b(i'll|i will|i'm going to|i am going to|i can|i'm gonna|let me)\b`,
		`(제가|저는|저희가|내가|나는|제\s?쪽)`,
		`(하겠습니다|할게요|할께요|하겠어요|드리겠습니다|드릴게요|맡겠습니다|맡을게요|볼게요|보겠습니다)`,
	)
	markupRE = regexp.MustCompile(`\{[a-z_]+\}|<[a-z_]+>|\[[a-z_ ]+\]`)
	spaceRE  = regexp.MustCompile(`\s+`)
)

// hangulEnd ends a Korean word in a pattern, as \b ends an English one
// (Go's \b knows only ASCII letters): "(네|예)" + hangulEnd matches "네,"
// but not "예산".
const hangulEnd = `([^\p{Hangul}]|$)`

func compile(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(p)
	}
	return out
}

func anyMatch(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// sentence is one sentence of a turn, cleaned, with its matching form.
type sentence struct {
	text  string // cleaned for reading
	norm  string // lowercased, apostrophes normalised
	terms int    // content terms
}

// sentences splits a turn into sentences at . ! ? and their full-width
// forms when followed by a space or the end, and at line breaks; each is
// cleaned for reading (see Clean).
func sentences(text string) []sentence {
	text = markupRE.ReplaceAllString(text, " ")
	var (
		out   []sentence
		start int
	)
	emit := func(end int) {
		s := cleantext.Clean(text[start:end])
		if s != "" {
			out = append(out, newSentence(s))
		}
		start = end
	}
	for i, r := range text {
		switch r {
		case '\n':
			emit(i)
		case '.', '!', '?', '。', '？', '！':
			next := i + utf8.RuneLen(r)
			if next >= len(text) || text[next] == ' ' || text[next] == '\n' {
				emit(next)
			}
		}
	}
	emit(len(text))
	return out
}

func newSentence(s string) sentence {
	return sentence{text: s, norm: normalize(s), terms: len(textutil.Terms(nil, s))}
}

// normalize lowercases s and writes its apostrophes as "'", as the cue
// patterns expect.
func normalize(s string) string { return apostrophes.Replace(strings.ToLower(s)) }

var apostrophes = strings.NewReplacer("’", "'", "‘", "'", "`", "'")

// substantive reports whether a sentence says enough to be an item.
func (s sentence) substantive() bool {
	return s.terms >= 2 && utf8.RuneCountInString(s.text) >= 8
}

func (s sentence) isQuestion() bool {
	t := strings.TrimRight(s.text, " \"')")
	if strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？") {
		return true
	}
	// Korean questions often lose their mark in transcription.
	t = strings.TrimRight(t, ". ")
	if !hasHangul(t) {
		return false
	}
	if strings.HasSuffix(t, "까요") && !strings.HasSuffix(t, "니까요") {
		return true
	}
	for _, e := range []string{"나요", "인가요", "습니까", "는지요", "건가요", "을까", "할까"} {
		if strings.HasSuffix(t, e) {
			return true
		}
	}
	return false
}

func hasHangul(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Hangul, r) {
			return true
		}
	}
	return false
}

// cutRunes trims s to at most n runes, ending with "…" when cut.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
