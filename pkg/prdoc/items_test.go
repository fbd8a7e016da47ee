package prdoc_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/qmsum"
)

// A proposal another speaker agrees to is a decision, in English and
// Korean; the same proposal met with something else is not.
func TestLocalDecisionAgreedProposal(t *testing.T) {
	tests := []struct {
		name    string
		give    []string
		wantSeq int // -1 for no decision
	}{
		{"english agreed", []string{"Alice: Why don't we use the rubber casing for the remote control?", "Bob: Yeah, sounds good."}, 0},
		{"english unanswered", []string{"Alice: Why don't we use the rubber casing for the remote control?", "Bob: The weather is nice today."}, -1},
		{"korean agreed", []string{"지영: 고무 케이스로 가는 게 어떨까요?", "민수: 좋아요, 그렇게 하죠."}, 0},
		{"korean unanswered", []string{"지영: 고무 케이스로 가는 게 어떨까요?", "민수: 오늘 날씨가 좋네요 정말로."}, -1},
		// "예산…" opens with 예 but says no "예" (yes).
		{"korean reply opening with 예산", []string{"지영: 고무 케이스로 가는 게 어떨까요?", "민수: 예산이 먼저예요."}, -1},
		// A statement is settled by a firm agreement or when it asks for
		// one; a "yeah" only acknowledges it.
		{"statement acknowledged", []string{"Alice: The prototype is being recorded at forty-eight kilohertz.", "Bob: Yeah."}, -1},
		{"statement firmly agreed", []string{"Alice: The prototype ships with the rubber casing.", "Bob: Yeah, sounds good."}, 0},
		{"statement asking for agreement", []string{"Alice: Then we move the launch to March 3. Agreed?", "Bob: Yeah."}, 0},
		{"korean statement firmly agreed", []string{"지영: 출시는 3월 3일로 옮기고 공지는 금요일에 나가요.", "민수: 네, 좋습니다."}, 0},
		{"korean statement acknowledged", []string{"지영: 출시는 3월 3일로 옮기고 공지는 금요일에 나가요.", "민수: 네."}, -1},
		// A hedge settles nothing unless it says so in a decision's words.
		{"hedged proposal", []string{"Alice: Maybe we could use the rubber casing, I don't know.", "Bob: Okay."}, -1},
		{"hedged decision", []string{"Alice: I think we decided to use the rubber casing, probably.", "Bob: Right."}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := extract(t, prdoc.Input{Turns: turns(tt.give...)})
			var seqs []int
			for _, x := range d.Decisions {
				seqs = append(seqs, x.Seq)
			}
			if tt.wantSeq < 0 && len(seqs) > 0 || tt.wantSeq >= 0 && !slices.Contains(seqs, tt.wantSeq) {
				t.Errorf("decisions at %v (%+v), want at %d", seqs, d.Decisions, tt.wantSeq)
			}
		})
	}
}

// Decisions are capped (default and configured) and spread over the
// meeting: of two equal clusters of decisions, a cap of two keeps one of
// each.
func TestLocalDecisionsCappedAndSpread(t *testing.T) {
	var lines []string
	for i := range 200 {
		if i < 6 || i >= 150 && i < 156 {
			lines = append(lines, fmt.Sprintf("P%d: We decided to ship feature number %d in the spring release.", i%3, i))
			continue
		}
		lines = append(lines, fmt.Sprintf("P%d: The chart on slide %d shows last quarter's numbers.", i%3, i))
	}
	if d := extract(t, prdoc.Input{Turns: turns(lines...)}); len(d.Decisions) < 2 || len(d.Decisions) > prdoc.MaxDecisions {
		t.Errorf("%d decisions, want 2 to the default cap %d", len(d.Decisions), prdoc.MaxDecisions)
	}
	d, err := prdoc.NewLocalWith(prdoc.LocalOptions{MaxDecisions: 2}).Extract(t.Context(), prdoc.Input{Turns: turns(lines...)})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Decisions) != 2 || d.Decisions[0].Seq >= 6 || d.Decisions[1].Seq < 150 {
		t.Errorf("decisions %+v, want one of turns 0-5 and one of turns 150-155", d.Decisions)
	}
}

// Open questions leave out trivial ones, ones answered with content by
// another speaker (a follow-up question is no answer), keep ones put off,
// and stay capped.
func TestLocalOpenQuestionsAnsweredAndTrivial(t *testing.T) {
	d := extract(t, prdoc.Input{Turns: turns(
		"Alice: S so any any questions?",
		"Bob: Which vendor supplies the replacement batteries for the prototype?",
		"Carol: How much does the casing cost per unit?",
		"Alice: The casing costs about two euros per unit from the current supplier.",
		"Bob: Who will present the marketing report at the board meeting?",
		"Carol: Is that right?",
		"Bob: That means twenty-five push buttons in total doesn't it?",
		"Alice: Which firmware version of the remote is it?",
		"Bob: Okay.",
		"Carol: Depends how fast the television runs, really, don't you think?",
		"민수: 예산 승인은 누가 최종적으로 하나요?",
		"지영: 예산 승인은 재무팀 팀장님이 최종적으로 합니다.",
		"지영: 출시 일정은 고객 지원팀과 언제 공유하나요?",
	)})
	texts := textsOf(d.OpenQuestions, func(q prdoc.OpenQuestion) string { return q.Text })
	want := []string{
		"Which vendor supplies the replacement batteries for the prototype?",
		"Who will present the marketing report at the board meeting?",
		"Which firmware version of the remote is it?",
		"출시 일정은 고객 지원팀과 언제 공유하나요?",
	}
	if !slices.Equal(texts, want) {
		t.Errorf("open questions = %q\nwant %q", texts, want)
	}

	// The reply answers in its own words, in either language; a reply
	// that puts the question off, or says nobody decided, leaves it open.
	d = extract(t, prdoc.Input{Turns: turns(
		"Priya: Who owns the store release buttons on launch day?",
		"지현: 서연 님이 해 주세요. 스토어 쪽은 서연 님 혼자 만지는 걸로.",
		"서연: 근데 둘 다 같은 필드를 같은 값으로 바꾼 경우는요?",
		"David: Right, same value means no conflict at all.",
		"민준: 그리고 독일어, 일본어 공개 시점은 언제 정하나요?",
		"지현: 네, 그것도 2.1 계획할 때 정해요.",
		"Priya: What is the retention period for the overwritten versions?",
		"David: I don't know yet, let me check with the backend team.",
		"Priya: When do we start the load test on staging?",
		"David: The load test starts next week on the staging servers.",
		"민준: 배포는 언제 시작하나요?",
		"서연: 다음 주에 배포 시작하고 그 다음에 공지 올려요.",
		"Priya: Is there anything still open that we didn't decide?",
		"지현: 파트너사 데모를 누가 할지는 아직 안 정했어요.",
	)})
	texts = textsOf(d.OpenQuestions, func(q prdoc.OpenQuestion) string { return q.Text })
	want = []string{
		"그리고 독일어, 일본어 공개 시점은 언제 정하나요?",
		"What is the retention period for the overwritten versions?",
		"파트너사 데모를 누가 할지는 아직 안 정했어요.",
	}
	if !slices.Equal(texts, want) {
		t.Errorf("open questions = %q\nwant %q", texts, want)
	}

	var many []string
	for i := range 9 {
		many = append(many, fmt.Sprintf("P%d: What colour should prototype number %d of the casing have?", i, i))
	}
	if d := extract(t, prdoc.Input{Turns: turns(many...)}); len(d.OpenQuestions) != prdoc.MaxOpenQuestions {
		t.Errorf("%d open questions, want the cap %d", len(d.OpenQuestions), prdoc.MaxOpenQuestions)
	}
}

// Which questions and doubts stay open.
func TestLocalOpenQuestionsYesNoAndDoubts(t *testing.T) {
	tests := []struct {
		name       string
		give, want []string
	}{{
		// A question that asks for a yes or a no is answered by one
		// ("Yeah.", "네."), unless the reply also puts it off; a
		// question of what, who or which, or a choice between two,
		// needs more than a yes.
		name: "yes-no",
		give: []string{
			"Ann: You're gonna talk about the Aurora results, per se?",
			"Bob: Yeah.",
			"Ann: Did you send the casing drawings to the factory?",
			"Bob: No.",
			"Carol: Which supplier makes the rubber casing?",
			"Bob: Yeah.",
			"Carol: Is the casing going to be rubber or hard plastic?",
			"Ann: Yes.",
			"민수: 배포 전에 QA 테스트가 끝나나요?",
			"지영: 네.",
			"민수: 독일어 일본어 공개 시점도 아직이죠?",
			"지영: 네, 그것도 2.1 계획할 때 정해요.",
			"민수: 새 빌드 스토어에 올렸나요?",
			"지영: 예전 빌드예요.",
			"Ann: Is the remote control going to ship with batteries?",
			"Bob: Yes, but we'll decide that later.",
		},
		want: []string{
			"Which supplier makes the rubber casing?",
			"Is the casing going to be rubber or hard plastic?",
			"독일어 일본어 공개 시점도 아직이죠?",
			"새 빌드 스토어에 올렸나요?",
			"Is the remote control going to ship with batteries?",
		},
	}, {
		// A doubt is an open question when it says what is in doubt
		// for the meeting, not when it is the speaker's own or names
		// nothing.
		name: "doubts",
		give: []string{
			"Ann: Cuz I'm not sure yet.",
			"Bob: Again, I'm not sure how much I should talk about stuff before everyone's here.",
			"Carol: I'm not sure what this'll mean.",
			"Ann: If it's rubber, I'm not sure how well a scrolling wheel would work.",
			"Bob: The noise dependency is not clear yet because all our nets are trained on the same noises.",
			"Carol: We still need to decide who presents at the review.",
		},
		want: []string{
			"If it's rubber, I'm not sure how well a scrolling wheel would work.",
			"The noise dependency is not clear yet because all our nets are trained on the same noises.",
			"We still need to decide who presents at the review.",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := extract(t, prdoc.Input{Turns: turns(tt.give...)})
			if got := textsOf(d.OpenQuestions, func(q prdoc.OpenQuestion) string { return q.Text }); !slices.Equal(got, tt.want) {
				t.Errorf("open questions = %q\nwant %q", got, tt.want)
			}
		})
	}
}

// An action item is cleaned, trimmed to its commitment clause and listed
// once.
func TestLocalActionItemText(t *testing.T) {
	tests := []struct {
		name string
		give []string
		want string
	}{
		{"english clause", []string{"Bob: Okay, so, um, as for the remote, I'll send the updated drawings to Alice by Friday, and then we can see what happens with the rest of the budget."},
			"I'll send the updated drawings to Alice by Friday"},
		{"markers and repeats", []string{"Bob: I {disfmarker} I I'll check the the microphone settings {vocalsound} before the next recording."},
			"I'll check the microphone settings before the next recording."},
		{"korean fillers", []string{"민수: 음, 어, 제가 다음 주 월요일까지 견적서를 정리하겠습니다."}, "제가 다음 주 월요일까지 견적서를 정리하겠습니다."},
		{"duplicate", []string{"Bob: I'll send the updated drawings to Alice by Friday.", "Alice: Thanks.", "Bob: I'll send the updated drawings to Alice by Friday."},
			"I'll send the updated drawings to Alice by Friday."},
		{"object before the commitment", []string{"Priya: Yes. And the launch dashboard, I'll have it ready by March 24 so we can use it during regression."},
			"The launch dashboard, I'll have it ready by March 24 so we can use it during regression."},
		{"object said before", []string{"Bob: The minutes need the new budget figures. I'll send them tomorrow."},
			"The minutes need the new budget figures. I'll send them tomorrow."},
		{"interjection before a pronoun", []string{"Bob: The budget sheet is almost done. Okay, I'll send it tomorrow."},
			"The budget sheet is almost done. I'll send it tomorrow."},
		{"korean object said before", []string{"민준: 엠바고 안내 메일 초안은 거의 다 됐어요. 금요일까지 보내 드릴게요."},
			"엠바고 안내 메일 초안은 거의 다 됐어요. 금요일까지 보내 드릴게요."},
		{"korean object in the commitment", []string{"민준: 초안은 거의 다 됐어요. 견적서를 금요일까지 정리하겠습니다."}, "견적서를 금요일까지 정리하겠습니다."},
		{"korean object with a comma", []string{"박민준: 네, 장애 공지 템플릿 한국어, 영어로 3월 27일까지 준비할게요."}, "장애 공지 템플릿 한국어, 영어로 3월 27일까지 준비할게요."},
		// An answer to "who will …?" takes on what the question asks.
		{"answers who", []string{"Alice: Who prepares the usability report?", "Bob: I'll do it by Friday."},
			"Who prepares the usability report? I'll do it by Friday."},
		{"korean answers who", []string{"서연: Trial 화면 문구는 누가 써요?", "민준: 제가 할게요. 한국어랑 영어 둘 다 3월 19일까지 드릴게요."},
			"Trial 화면 문구는 누가 써요? 한국어랑 영어 둘 다 3월 19일까지 드릴게요."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := extract(t, prdoc.Input{Date: wednesday, Turns: turns(tt.give...)})
			if len(d.ActionItems) != 1 || d.ActionItems[0].Text != tt.want {
				t.Fatalf("action items = %+v, want one: %q", d.ActionItems, tt.want)
			}
			if strings.Contains(d.ActionItems[0].Text, "\n") {
				t.Errorf("action item spans lines: %q", d.ActionItems[0].Text)
			}
		})
	}
}

// A hedged commitment or one that only says what "we" will do is no action
// item unless it names a due date.
func TestLocalWeakCommitments(t *testing.T) {
	d := extract(t, prdoc.Input{Date: wednesday, Turns: turns(
		"Bob: Maybe I'll ask Carlos a little more about the filters.",
		"Alice: We're way under budget and we'll make huge profits.",
		"Carol: We need to do the function key thing so that it comes up on screen.",
		"Bob: I guess I'll send the filter settings to Carol by Friday.",
		"Alice: We'll finish the casing drawings by next Monday.",
		"Carol: I'll book the usability lab for the second round.",
	)})
	got := textsOf(d.ActionItems, func(a prdoc.ActionItem) string { return a.Text })
	want := []string{
		"I guess I'll send the filter settings to Carol by Friday.",
		"We'll finish the casing drawings by next Monday.",
		"I'll book the usability lab for the second round.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("action items = %q\nwant %q", got, want)
	}
}

// A request is an action item when it names its owner, states a due date
// or is taken on in the reply; a "you" that asks nothing of anyone, or a
// request the reply does not take on, is none. One task is one item: a
// reply that takes the request on by a commitment to "it" is the
// request's item ("Can you mail the schedule …?" — "… I'll send it out
// …"), and one that names its task is the item instead of the request.
// English and Korean.
func TestLocalRequestsNeedAnOwner(t *testing.T) {
	d := extract(t, prdoc.Input{Date: wednesday, Turns: turns(
		"Ann: You have to make separate queries every time.",
		"Bob: Right, that's how the index works.",
		"Ann: How much better can you make it?",
		"Bob: Not much, the model is the limit.",
		"Ann: Can you mail the schedule out to the list?",
		"Bob: So that's where I'm putting it, but I'll send it out to the list tonight.",
		"Carol: Bob, could you check the lab booking?",
		"Ann: Can you prepare the cost sheet by Friday?",
		"Carol: Hmm, the cost sheet is mostly done already.",
		"Ann: Could you update the budget slides?",
		"Carol: Sure, I'll update the budget slides after lunch.",
		"민수: 회의록 좀 정리해 주세요.",
		"지영: 네, 알겠습니다.",
		"민수: 발표 자료도 한번 확인해 주세요.",
		"지영: 그건 지난주에 다 봤어요.",
		"민수: 견적서 파일도 한번 확인해 주세요.",
		"지영: 예산표 말씀이세요?",
	)})
	got := textsOf(d.ActionItems, func(a prdoc.ActionItem) string { return a.Owner + ": " + a.Text })
	want := []string{
		"Bob: Can you mail the schedule out to the list?",
		"Bob: Could you check the lab booking?",
		"Carol: Can you prepare the cost sheet by Friday?",
		"Carol: I'll update the budget slides after lunch.",
		"지영: 회의록 좀 정리해 주세요.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("action items = %q\nwant %q", got, want)
	}
}

// A decision someone labelled as one ("결정: …", "Decision: …") is always
// in the list, however many better-scored decisions the meeting has and
// however close it is to one of them.
func TestLocalLabelledDecisionAlwaysKept(t *testing.T) {
	utts, err := qmsum.LoadJSONL("../../examples/meetings/launch-review.jsonl", "lr")
	if err != nil {
		t.Fatal(err)
	}
	var ts []prdoc.Turn
	for i, u := range utts {
		ts = append(ts, prdoc.Turn{ID: int64(i + 1), Seq: i, Speaker: u.SpeakerName, Text: u.Text, StartMS: u.StartMS, EndMS: u.EndMS})
	}
	n := len(ts)
	for i, line := range []string{
		"김민수: 결정: 리모컨 출시는 다음 달 첫째 주로 합니다.",
		"Bob: Decision: the pilot stays in Berlin.",
		"이지은: 액션 아이템: 이지은 님이 배터리 사양을 금요일까지 정리합니다.",
	} {
		who, text, _ := strings.Cut(line, ": ")
		ts = append(ts, prdoc.Turn{ID: int64(n + i + 1), Seq: n + i, Speaker: who, Text: text})
	}
	d := extract(t, prdoc.Input{Turns: ts, Date: wednesday})
	got := textsOf(d.Decisions, func(x prdoc.Decision) string { return x.Text })
	if len(d.Decisions) > prdoc.MaxDecisions {
		t.Fatalf("%d decisions, over the cap %d", len(d.Decisions), prdoc.MaxDecisions)
	}
	for _, want := range []string{"리모컨 출시", "pilot stays in Berlin"} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("decisions %q lack the labelled %q", got, want)
		}
	}
	actions := textsOf(d.ActionItems, func(a prdoc.ActionItem) string { return a.Text })
	if !slices.ContainsFunc(actions, func(s string) bool { return strings.Contains(s, "배터리 사양") }) {
		t.Errorf("action items %q lack the labelled one", actions)
	}
}

// ownedItem is an action item's owner, text and due day.
type ownedItem struct{ owner, text, due string }

// ownedItems lists a document's action items as ownedItems.
func ownedItems(d prdoc.Document) []ownedItem {
	var out []ownedItem
	for _, a := range d.ActionItems {
		out = append(out, ownedItem{a.Owner, a.Text, a.DueDate})
	}
	return out
}

// A recap is the meeting's own list: the numbered points of an announced
// decisions recap are decisions (their numbering dropped), and the
// sentences of an action-items recap that address a participant are
// that person's action items, in English and Korean. A numbered sentence
// by someone else, or outside a recap, is not listed for being numbered.
func TestLocalRecapLists(t *testing.T) {
	d := extract(t, prdoc.Input{Date: wednesday, Turns: turns(
		"Bob: First, the prototype colour is still open for me.",
		"Carol Diaz: We looked at three casings last week and the blue one tested best.",
		"Alice: OK, let me recap what we decided today.",
		"Alice: First, the casing is the blue rubber one.",
		"Bob: Second, I want a longer battery life.",
		"Alice: Second, the launch moves to the first week of March.",
		"Alice: Now let's go through the action items.",
		"Alice: Bob, the casing samples to the factory by Friday.",
		"Bob: Yes.",
		"Alice: Carol, the updated budget sheet by next Monday.",
		"박민준: 63명 안내 메일은 제가 3월 17일까지 보낼게요.",
		"Bob: And I'll update the budget sheet numbers by next Monday.",
		"지현: 결정사항 정리할게요.",
		"지현: 첫째, 출시일은 3월 31일로 한 주 미뤘어요.",
		"지현: 그럼 action item 읽을게요.",
		"지현: 민준 님, 63명 안내 메일 3월 17일까지.",
		"박민준: 네, 맞아요.",
		"Dana: To sum up, we agreed that the remote gets a rubber case and a scroll wheel.",
		"지현: 잠깐만요, 화면 좀 다시 보여 주세요.",
		"민준: 네.",
	)})
	decisions := textsOf(d.Decisions, func(x prdoc.Decision) string { return x.Text })
	want := []string{"The casing is the blue rubber one.", "The launch moves to the first week of March.", "출시일은 3월 31일로 한 주 미뤘어요.",
		"To sum up, we agreed that the remote gets a rubber case and a scroll wheel."}
	for _, w := range want {
		if !slices.Contains(decisions, w) {
			t.Errorf("decisions %q lack %q", decisions, w)
		}
	}
	for _, x := range decisions {
		if strings.Contains(x, "battery life") || strings.Contains(x, "prototype colour") {
			t.Errorf("decisions %q list %q, numbered outside the recap", decisions, x)
		}
	}
	got := ownedItems(d)
	if slices.ContainsFunc(got, func(a ownedItem) bool { return strings.Contains(a.text, "보여 주세요") }) {
		t.Errorf("action items %+v list a request for now", got)
	}
	// A task taken on in the discussion and read out in the recap is one
	// item, the recap's; another owner's similar task stays.
	if slices.ContainsFunc(got, func(a ownedItem) bool { return strings.Contains(a.text, "보낼게요") }) {
		t.Errorf("action items %+v list 박민준's mail twice", got)
	}
	for _, w := range []ownedItem{
		{"Bob", "I'll update the budget sheet numbers by next Monday.", "2026-01-12"},
		{"Bob", "The casing samples to the factory by Friday.", "2026-01-09"},
		{"Carol Diaz", "The updated budget sheet by next Monday.", "2026-01-12"},
		{"박민준", "63명 안내 메일 3월 17일까지.", "2026-03-17"},
	} {
		if !slices.Contains(got, w) {
			t.Errorf("action items %+v lack %+v", got, w)
		}
	}
}

// A task taken on in English and read out in a Korean recap in the
// Hangul spellings of its words ("테스트 플랜" for "test plan") is one
// item, the recap's; the recap's other task is another.
func TestLocalRecapInTheOtherLanguageIsOneItem(t *testing.T) {
	d := extract(t, prdoc.Input{Date: wednesday, Turns: turns(
		"Priya Raman: I'll write the conflict test plan by Tuesday.",
		"David Park: Good, I need it before the merge.",
		"김지현: 그럼 action item 읽을게요.",
		"김지현: Priya, conflict 테스트 플랜 3월 17일까지, 부하 테스트 재실행 17일.",
		"Priya Raman: Yes.",
	)})
	var got []string
	for _, a := range d.ActionItems {
		if a.Owner == "Priya Raman" {
			got = append(got, a.Text)
		}
	}
	if len(got) != 2 || !strings.Contains(got[0], "테스트 플랜") || !strings.Contains(got[1], "재실행") {
		t.Errorf("Priya's action items %q, want the recap's two", got)
	}
}

// A recap that reads out several tasks to one person in one sentence, each
// with its date, lists each as an item with its due date: a day said
// without its month has the month of the date before it, a range is due
// at its end, and "3일 안에" stays a number of days. A sentence with one
// date, or tasks that share it, is one item.
func TestLocalRecapReadsOutOneTaskPerDate(t *testing.T) {
	d := extract(t, prdoc.Input{Date: wednesday, Turns: turns(
		"김지현: 그럼 action item 읽을게요.",
		"김지현: Priya, conflict 테스트 플랜 3월 17일까지, 부하 테스트 재실행 19일, 회귀 테스트 20일부터 26일.",
		"Priya Raman: 네.",
		"김지현: 서연 님, 릴리즈 노트 3월 23일까지, 장애 공지 템플릿 3일 안에.",
		"이서연: 네.",
		"Alice Kim: Now let's go through the action items.",
		"Alice Kim: Bob, the casing samples by Friday, and the budget sheet by next Monday.",
		"Alice Kim: Carol, the slides and the speaker notes, both by Thursday.",
		"Bob: Fine.",
		"Carol: OK.",
	)})
	got := ownedItems(d)
	want := []ownedItem{
		{"Priya Raman", "Conflict 테스트 플랜 3월 17일까지", "2026-03-17"},
		{"Priya Raman", "부하 테스트 재실행 19일", "2026-03-19"},
		{"Priya Raman", "회귀 테스트 20일부터 26일", "2026-03-26"},
		{"이서연", "릴리즈 노트 3월 23일까지", "2026-03-23"},
		{"이서연", "장애 공지 템플릿 3일 안에", "2026-01-10"},
		{"Bob", "The casing samples by Friday", "2026-01-09"},
		{"Bob", "The budget sheet by next Monday", "2026-01-12"},
		{"Carol", "The slides and the speaker notes, both by Thursday.", "2026-01-08"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("action items\n%+v\nwant\n%+v", got, want)
	}
}

// A Korean commitment that lists its tasks in clauses joined by "-고,"
// is one action item per task, each clause in its to-do form with the
// due date it says (a date something is changed to is none); "보고"
// (looking at something before deciding) joins
// no list, nor does a sentence with a single clause. In English the
// tasks are verb phrases after one "I'll"; a list of nouns is one task.
func TestLocalKoreanTaskListIsOneItemPerTask(t *testing.T) {
	d := extract(t, prdoc.Input{Date: wednesday, Turns: turns(
		"김지현: 저는 diff 화면 디자인 3월 16일까지 받고, 2.1 로드맵에 CRDT 머지 올리고, war room 예약할게요.",
		"이서연: 데이터 보고, 다음 주 월요일에 결정할게요.",
		"박민준: 그럼 저는 엠바고 날짜를 3월 31일로 바꾸고, 에이전시에는 3월 13일까지 알려 드릴게요.",
		"박민준: 릴리즈 노트 초안은 제가 금요일까지 쓰고 공유할게요.",
		"David Park: I'll book the room, update the roadmap and send the notes by Friday.",
		"Priya Raman: I'll send the deck, the notes and the budget on Monday.",
	)})
	got := ownedItems(d)
	want := []ownedItem{
		{"김지현", "Diff 화면 디자인 3월 16일까지 받기", "2026-03-16"},
		{"김지현", "2.1 로드맵에 CRDT 머지 올리기", ""},
		{"김지현", "War room 예약할게요", ""},
		{"이서연", "데이터 보고, 다음 주 월요일에 결정할게요.", "2026-01-12"},
		{"박민준", "엠바고 날짜를 3월 31일로 바꾸기", ""},
		{"박민준", "에이전시에는 3월 13일까지 알려 드릴게요", "2026-03-13"},
		{"박민준", "릴리즈 노트 초안은 제가 금요일까지 쓰고 공유할게요.", "2026-01-09"},
		{"David Park", "Book the room", ""},
		{"David Park", "Update the roadmap", ""},
		{"David Park", "Send the notes by Friday", "2026-01-09"},
		{"Priya Raman", "I'll send the deck, the notes and the budget on Monday.", "2026-01-12"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("action items\n%+v\nwant\n%+v", got, want)
	}
}

// A sentence that names someone's duty without giving it a future, one
// about a third person, and one that commits to something done in the
// meeting itself (asking a question, coming back to a point) are no
// action items; the same words with a future, a task or a deadline are.
// English and Korean.
func TestLocalNotTasks(t *testing.T) {
	d := extract(t, prdoc.Input{Date: wednesday, Turns: turns(
		"Ann: I am responsible for User Interface Design.",
		"Bob: My fellow minister is in charge of the program.",
		"Carol: That will be the assignment for next week.",
		"Ann: He'll get you some data.",
		"Bob: They will send us the figures by Friday.",
		"Carol: Let me ask my question once more.",
		"Ann: I'll get to that in a moment.",
		"Bob: I'll ask Dan about the microphones.",
		"Carol: I'll call Dan so that he can send the figures.",
		"민수: 저는 UI 담당이에요.",
		"지영: 질문 하나 드릴게요.",
		"민수: 지영 님, 다음 주까지 발표 담당해 주세요.",
		"지영: 네, 알겠습니다.",
	)})
	got := ownedItems(d)
	want := []ownedItem{
		{"Carol", "That will be the assignment for next week.", "2026-01-12"},
		{"Bob", "I'll ask Dan about the microphones.", ""},
		{"Carol", "I'll call Dan so that he can send the figures.", ""},
		{"지영", "지영 님, 다음 주까지 발표 담당해 주세요.", "2026-01-12"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("action items\n%+v\nwant\n%+v", got, want)
	}
}
