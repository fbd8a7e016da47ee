package prdoc_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/prdoc"
)

// wednesday is the meeting date the due dates resolve against.
var wednesday = time.Date(2026, 1, 7, 10, 0, 0, 0, time.UTC)

func turns(lines ...string) []prdoc.Turn {
	out := make([]prdoc.Turn, len(lines))
	for i, l := range lines {
		who, text, _ := strings.Cut(l, ": ")
		out[i] = prdoc.Turn{ID: int64(100 + i), Seq: i, Speaker: who, Text: text, StartMS: int64(i) * 5000, EndMS: int64(i)*5000 + 4000}
	}
	return out
}

// textsOf lists what text says of each item, in order.
func textsOf[T any](items []T, text func(T) string) []string {
	var out []string
	for _, x := range items {
		out = append(out, text(x))
	}
	return out
}

func extract(t *testing.T, in prdoc.Input) prdoc.Document {
	t.Helper()
	d, err := prdoc.NewLocal().Extract(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLocalDecisions(t *testing.T) {
	tests := []struct {
		give string
		want bool
	}{
		{"Alice: We decided to ship version two on Friday.", true},
		{"Alice: Let's go with the blue design for the landing page.", true},
		{"Alice: So we'll use Postgres for the event store.", true},
		{"민수: 배포는 다음 주 월요일로 하기로 했습니다.", true},
		{"민수: 최종 결정은 React Native로 가는 것입니다.", true},
		{"지영: 그 방식으로 합시다, 일정이 더 안전하니까요.", true},
		{"Alice: Did we decide to ship on Friday?", false},
		{"지영: 고객 계정 마이그레이션 방법은 아직 결정되지 않았습니다.", false},
		{"Bob: The weather was nice this morning.", false},
		{"Bob: Agreed.", false},
		{"민준: 한국 시장은 무료로 먼저 써 보고 결정하는 경향이 강해서요.", false},
		{"민수: 그 문제는 합의가 어렵습니다.", false},
		{"지영: 결론적으로 이번 분기에는 iOS만 냅니다.", true},
		{"지영: 출시일은 3월 31일로 확정했습니다.", true},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			d := extract(t, prdoc.Input{Turns: turns(tt.give)})
			if got := len(d.Decisions) > 0; got != tt.want {
				t.Errorf("decision found %v, want %v (%+v)", got, tt.want, d.Decisions)
			}
		})
	}
}

// A request, or moving the meeting along, answered with "OK" is not an
// agreed proposal, and taking on a task is not a decision.
func TestLocalRequestIsNotADecision(t *testing.T) {
	for _, tc := range [][]string{
		{"지현: David, 상황 설명 부탁해요.", "David: OK. So right now sync resolves conflicts per task with last write wins."},
		{"Ann: Bob, could you walk us through the load test numbers?", "Bob: Sure. We ran four thousand requests per second against staging."},
		{"지현: 맞아요. 그럼 바로 그 얘기로 넘어가죠.", "David: OK. So right now sync resolves conflicts per task."},
		{"Ann: Okay, let's move on to the marketing budget now.", "Bob: Sure, I have the numbers here."},
		// The reason given with a request is answered with it.
		{"민준: 그 대시보드 저도 볼 수 있게 해 주세요. 출시 날 수치 물어보는 사람이 많아서.", "Priya: Sure, I'll share it read-only."},
	} {
		if d := extract(t, prdoc.Input{Turns: turns(tc...)}); len(d.Decisions) > 0 {
			t.Errorf("%q: decisions %+v, want none", tc[0], d.Decisions)
		}
	}
	// An agreement answers the turn it follows, not the one before it.
	d := extract(t, prdoc.Input{Turns: turns(
		"Priya: Median sync after reconnect is eleven seconds, p95 is almost two minutes.",
		"David: Two minutes is bad, the client retries with full backoff.",
		"서연: 네, 재연결 됐을 때 backoff를 reset 안 하고 있었어요.")})
	for _, x := range d.Decisions {
		if x.Seq == 0 {
			t.Errorf("decisions %+v: the statement of turn 0 is not one", d.Decisions)
		}
	}
	// The proposal agreed to is the decision; the reply taking the task on
	// is not.
	d = extract(t, prdoc.Input{Turns: turns("지현: 그 수정은 이번 주에 머지하면 어때요?", "서연: 네, 이번 주 금요일까지 머지할게요.")})
	if len(d.Decisions) != 1 || d.Decisions[0].Seq != 0 {
		t.Errorf("decisions %+v, want the proposal (turn 0) only", d.Decisions)
	}
	// A decision stated with "please" stays one.
	d = extract(t, prdoc.Input{Turns: turns("Ann: Let's go with the blue design, please update the spec.", "Bob: Okay, will do.")})
	if len(d.Decisions) != 1 {
		t.Errorf("decisions %+v, want the blue design", d.Decisions)
	}
}

// A date said with a weekday that is not its own names no calendar day
// (March 14 is a Saturday in 2026 and a Sunday in 2027): the item keeps
// the due date as said, in its text too, with no day resolved.
func TestLocalDueOnAnotherWeekday(t *testing.T) {
	for _, tc := range []struct{ give, wantDue string }{
		{"이서연: 스토어 스크린샷은 3월 14일 금요일까지 드릴게요.", "3월 14일 금요일까지"},
		{"Bob: I'll send the store screenshots by Friday, March 14.", "by Friday, March 14"},
	} {
		d := extract(t, prdoc.Input{Date: wednesday, Turns: turns(tc.give)})
		if len(d.ActionItems) != 1 || d.ActionItems[0].Due != tc.wantDue || d.ActionItems[0].DueDate != "" ||
			!strings.Contains(d.ActionItems[0].Text, tc.wantDue) {
			t.Errorf("%q: action items %+v, want one due %q with no day", tc.give, d.ActionItems, tc.wantDue)
		}
	}
}

func TestLocalActionItemsOwnerAndDue(t *testing.T) {
	tests := []struct {
		name      string
		give      []string
		wantOwner string
		wantDue   string // YYYY-MM-DD, "" for none
	}{
		{"english commitment", []string{"Bob: I'll send the release notes to support by Friday."}, "Bob", "2026-01-09"},
		{"korean commitment", []string{"민수: 제가 내일까지 보고서를 정리하겠습니다."}, "민수", "2026-01-08"},
		{"request to a named speaker", []string{"Alice: Bob, can you draft the FAQ by next Monday?", "Bob: Sure."}, "Bob", "2026-01-12"},
		{"request answered by the next speaker", []string{"Alice: Could you please check the load test numbers?", "Carol: Yes, on it."}, "Carol", ""},
		{"korean request to a named speaker", []string{"지영: 민수 님이 다음 주 금요일까지 디자인 시안을 공유해 주세요.", "민수: 네 알겠습니다."}, "민수", "2026-01-16"},
		{"korean month and day", []string{"민수: 제가 1월 20일까지 계약서를 검토하겠습니다."}, "민수", "2026-01-20"},
		{"end of month", []string{"Bob: I will finish the migration plan by the end of the month."}, "Bob", "2026-01-31"},
		{"in two weeks", []string{"Bob: I'm going to prepare the benchmark report in two weeks."}, "Bob", "2026-01-21"},
		{"request addressing a speaker by first name", []string{"Alice Kim: David, can you send the rollout plan by Friday?", "Carol: Sure, he has the numbers.", "David Park: Yes."}, "David Park", "2026-01-09"},
		{"korean request by given name", []string{"김지현: 민준 님, 다음 주 화요일까지 메일 보내 주세요.", "박민준: 네."}, "박민준", "2026-01-13"},
		{"the date said as a deadline", []string{"박민준: 그럼 저는 엠바고 날짜가 3월 31일로 바뀐 걸 에이전시에 3월 13일까지 알려 드릴게요."}, "박민준", "2026-03-13"},
		{"a date and its weekday", []string{"김지현: 디자인은 제가 하나 씨랑 얘기해서 3월 16일 월요일까지 받을게요."}, "김지현", "2026-03-16"},
		{"english deadline after another date", []string{"Bob: I'll send the final notes on March 30, the draft by March 12."}, "Bob", "2026-03-12"},
		{"english weekday and date", []string{"Bob: I'll send the store screenshots by Friday, March 13."}, "Bob", "2026-03-13"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := extract(t, prdoc.Input{Date: wednesday, Turns: turns(tt.give...)})
			if len(d.ActionItems) != 1 {
				t.Fatalf("action items = %+v, want 1", d.ActionItems)
			}
			a := d.ActionItems[0]
			if a.Owner != tt.wantOwner || a.DueDate != tt.wantDue || a.Seq != 0 {
				t.Errorf("item = %+v, want owner %q due %q", a, tt.wantOwner, tt.wantDue)
			}
			if tt.wantDue != "" && a.Due == "" {
				t.Errorf("due date %s resolved from no stated text", a.DueDate)
			}
		})
	}
}

func TestLocalOpenQuestions(t *testing.T) {
	d := extract(t, prdoc.Input{Turns: turns(
		"Bob: How are we going to migrate the old customer accounts without downtime?",
		"Alice: Right?",
		"Carol: Should we pick the managed database or run our own cluster?",
		"Alice: We decided to go with the managed database.",
		"지영: 데이터 보존 기간은 아직 정해지지 않았습니다.",
	)})
	texts := textsOf(d.OpenQuestions, func(q prdoc.OpenQuestion) string { return q.Text })
	want := []string{
		"How are we going to migrate the old customer accounts without downtime?",
		"데이터 보존 기간은 아직 정해지지 않았습니다.",
	}
	if !slices.Equal(texts, want) {
		t.Errorf("open questions = %q, want %q (the answered one and the filler left out)", texts, want)
	}
}

// Every turn is on the agenda: the topics first, then items for the turns
// no topic covered yet.
func TestAgendaCoversTopicsAndTail(t *testing.T) {
	// Long turns from two vocabularies, 50 s each: the lexical segmenter
	// needs blocks of a few hundred words to see the change at turn 40.
	release := strings.Fields("release schedule load test candidate build staging deploy rollback latency throughput server cluster")
	hiring := strings.Fields("채용 일정 면접 질문 목록 신입 개발자 지원자 서류 평가 연봉 협상 온보딩")
	var lines []string
	for i := range 80 {
		vocab, who := release, "Alice"
		if i >= 40 {
			vocab, who = hiring, "민수"
		}
		words := make([]string, 60)
		for k := range words {
			words[k] = vocab[(i*7+k*5)%len(vocab)]
		}
		lines = append(lines, who+": "+strings.Join(words, " "))
	}
	ts := turns(lines...)
	for i := range ts {
		ts[i].StartMS, ts[i].EndMS = ts[i].StartMS*10, ts[i].EndMS*10
	}
	in := prdoc.Input{Turns: ts, Topics: []prdoc.Topic{
		{ID: "t-1", Title: "Release", Keywords: []string{"release"}, StartSeq: 0, EndSeq: 19},
		{ID: "t-2", Title: "Load test", StartSeq: 20, EndSeq: 39},
		{ID: "t-3", Title: "Beyond the input", StartSeq: 200, EndSeq: 210},
	}}
	agenda, err := prdoc.Agenda(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	next := 0
	for _, a := range agenda {
		if a.StartSeq != next {
			t.Fatalf("agenda %+v: item starts at %d, want %d", agenda, a.StartSeq, next)
		}
		next = a.EndSeq + 1
	}
	// Long topics may be refined into several items; they keep the id.
	var ids []string
	for _, a := range agenda {
		if len(ids) == 0 || ids[len(ids)-1] != a.TopicID {
			ids = append(ids, a.TopicID)
		}
	}
	if next != 80 || !slices.Equal(ids, []string{"t-1", "t-2", ""}) {
		t.Errorf("agenda = %+v, want items of t-1, t-2, then of the uncovered turns", agenda)
	}
	if !slices.Contains(agenda[0].Keywords, "release") || len(agenda[0].Keywords) < 2 {
		t.Errorf("first item keywords = %q, want the topic's and key terms", agenda[0].Keywords)
	}
}

func TestMarkdownEscapesMeetingText(t *testing.T) {
	d := extract(t, prdoc.Input{MeetingTitle: "# Weekly | sync", Date: wednesday, Turns: turns(
		"Alice: We decided to use *bold* [links](http://x) <script> in the docs.",
		"민수: 제가 금요일까지 문서를 정리하겠습니다.",
	)})
	md := prdoc.Markdown(d)
	for _, want := range []string{"# \\# Weekly \\| sync (2026-01-07)", "\\*bold\\*", "\\[links\\]", "&lt;script&gt;", "**민수**", "due 금요일까지 → 2026-01-09"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "<script>") {
		t.Error("markdown carries raw HTML from the meeting")
	}
}

func TestMergeSectionIsIdempotentAndAppends(t *testing.T) {
	const m1, m2 = "m-1", "m-2"
	ledger := prdoc.MergeSection(membank.CategoryDecisions, "", m1, "- a\n", 0)
	again := prdoc.MergeSection(membank.CategoryDecisions, ledger, m1, "- a\n", 0)
	if again != ledger {
		t.Errorf("merging the same meeting twice changed the content:\n%q\n%q", ledger, again)
	}
	two := prdoc.MergeSection(membank.CategoryDecisions, ledger, m2, "- b\n", 0)
	if !strings.HasPrefix(two, ledger) || strings.Index(two, "- b") < strings.Index(two, "- a") {
		t.Errorf("second meeting not appended:\n%s", two)
	}
	replaced := prdoc.MergeSection(membank.CategoryDecisions, two, m1, "- a2\n", 0)
	if strings.Contains(replaced, "- a\n") || !strings.Contains(replaced, "- a2") || strings.Index(replaced, "- a2") > strings.Index(replaced, "- b") {
		t.Errorf("section of m1 not replaced in place:\n%s", replaced)
	}
	if got := prdoc.StripMarkers(replaced); strings.Contains(got, "mithub:meeting") || !strings.Contains(got, "- b") {
		t.Errorf("StripMarkers = %q", got)
	}
	if got := prdoc.MergeSection(membank.CategoryOverview, "kept", m1, "new", 0); got != "kept" {
		t.Errorf("overview overwritten: %q", got)
	}
	if _, err := prdoc.Merge(nil, m1, []prdoc.MemoryUpdate{{Category: "99-x", Content: "x"}}, 0); err == nil {
		t.Error("Merge accepted an unknown category")
	}
}

func TestMergeSectionKeepsTheNewestMeetingsWithinTheBound(t *testing.T) {
	const limit = 600
	cat := membank.CategoryProgress
	bank := "# Progress\n\nWritten by hand: 출시 일정은 팀장이 정한다.\n"
	var ids []string
	for i := range 30 {
		id := fmt.Sprintf("m-%02d", i)
		ids = append(ids, id)
		bank = prdoc.MergeSection(cat, bank, id, fmt.Sprintf("- [ ] 민수: item %d of meeting %d\n", i, i), limit)
		if len(bank) > limit {
			t.Fatalf("after meeting %d the category is %d bytes, over %d:\n%s", i, len(bank), limit, bank)
		}
		if !strings.HasPrefix(bank, "# Progress\n\nWritten by hand: 출시 일정은 팀장이 정한다.\n") {
			t.Fatalf("text written by hand was dropped:\n%s", bank)
		}
		if strings.Contains(bank, "\n\n\n") {
			t.Fatalf("dropping sections left blank lines behind:\n%q", bank)
		}
	}
	// The sections kept are the newest ones, in meeting order, each whole.
	var kept []string
	for _, id := range ids {
		if strings.Contains(bank, "<!-- mithub:meeting="+id+" -->") {
			kept = append(kept, id)
		}
	}
	if len(kept) < 3 || kept[len(kept)-1] != "m-29" {
		t.Fatalf("kept %v:\n%s", kept, bank)
	}
	for i, id := range kept {
		if id != ids[len(ids)-len(kept)+i] {
			t.Fatalf("kept %v, not the newest meetings:\n%s", kept, bank)
		}
		begin := strings.Index(bank, "<!-- mithub:meeting="+id+" -->")
		end := strings.Index(bank, "<!-- /mithub:meeting="+id+" -->")
		if begin < 0 || end < begin {
			t.Fatalf("section of %s is not whole:\n%s", id, bank)
		}
	}
	// Merging a kept meeting again changes nothing.
	again := prdoc.MergeSection(cat, bank, "m-29", "- [ ] 민수: item 29 of meeting 29\n", limit)
	if again != bank {
		t.Errorf("merging the newest meeting again changed the category:\n%s\n---\n%s", bank, again)
	}
	// A meeting's own section stays even when it alone is over the bound.
	big := strings.Repeat("- 긴 항목 long item\n", 100)
	alone := prdoc.MergeSection(cat, bank, "m-big", big, limit)
	if !strings.Contains(alone, "<!-- mithub:meeting=m-big -->") || strings.Contains(alone, "<!-- mithub:meeting=m-29 -->") {
		t.Errorf("an oversized section should replace every other one:\n%s", alone)
	}
	if unbounded := prdoc.MergeSection(cat, bank, "m-30", "- x\n", 0); !strings.Contains(unbounded, "mithub:meeting="+kept[0]+" ") {
		t.Errorf("maxBytes 0 dropped a section")
	}
}

func TestProposedMemoryUpdates(t *testing.T) {
	d := extract(t, prdoc.Input{MeetingID: "m-1", MeetingTitle: "Sprint review", Date: wednesday, Turns: turns(
		"Alice: We decided to drop the legacy export feature.",
		"Bob: I'll update the changelog by Friday.",
		"Carol: Next time we should have run the load test earlier.",
	)})
	got := map[string]string{}
	for _, u := range d.MemoryUpdates {
		got[u.Category] = u.Content
	}
	if !strings.Contains(got[membank.CategoryDecisions], "2026-01-07 · Sprint review: We decided to drop the legacy export feature. (Alice)") {
		t.Errorf("decisions update = %q", got[membank.CategoryDecisions])
	}
	if !strings.Contains(got[membank.CategoryProgress], "- [ ] Bob: I'll update the changelog by Friday.") {
		t.Errorf("progress update = %q", got[membank.CategoryProgress])
	}
	if !strings.Contains(got[membank.CategoryLessons], "Next time we should have run the load test earlier.") {
		t.Errorf("lessons update = %q", got[membank.CategoryLessons])
	}
	if got[membank.CategorySummary] == "" {
		t.Error("no summary update")
	}
}
