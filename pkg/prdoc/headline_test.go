package prdoc

import "testing"

// The heading is the most frequent run of recurring content words of the
// item's most central sentence, in English and Korean; turns outside the
// item do not count, and an item without such a run has no heading.
func TestHeadline(t *testing.T) {
	mk := func(lines ...string) []Turn {
		out := make([]Turn, len(lines))
		for i, l := range lines {
			out[i] = Turn{Seq: i, Speaker: "A", Text: l}
		}
		return out
	}
	tests := []struct {
		name     string
		give     []Turn
		from, to int
		want     string
	}{
		{"english", mk(
			"Um, so the remote control casing should be rubber, I think.",
			"The remote control casing costs more in plastic.",
			"Yeah, the remote control casing is the main question.",
			"I like the yellow one.",
		), 0, 3, "Remote control casing"},
		{"korean", mk(
			"음 배포 일정 검토를 먼저 하죠.",
			"배포 일정 검토는 다음 주에 끝납니다.",
			"그럼 배포 일정 검토 결과를 공유할게요.",
		), 0, 2, "배포 일정 검토"},
		{"short item: words that recur twice, no preposition at the end", mk(
			"Five percent on day one, then the sync error rate under half a percent.",
			"The sync error rate under load was fine on staging.",
			"Good, I'll check it.",
		), 0, 2, "Sync error rate"},
		{"no dates or one-syllable words", mk(
			"심사 제출은 3월 25일에 제가 할게요.",
			"3월 25일 심사 제출 전에 스크린샷이 필요해요.",
			"스크린샷은 3월 25일 전에 제가 드릴게요.",
			"그럼 심사 제출 3월 25일로 확정이요.",
		), 0, 3, "심사 제출"},
		{"outside the item", mk(
			"The remote control casing is rubber.",
			"The remote control casing is plastic.",
			"The remote control casing is wood.",
			"Budget figures arrive tomorrow morning.",
		), 3, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := headline(tt.give, tt.from, tt.to); got != tt.want {
				t.Errorf("headline = %q, want %q", got, tt.want)
			}
		})
	}
}

// A key-term title or a fallback name gets a heading; a title a model
// gave (a heading already) stays.
func TestRetitleKeepsHeadings(t *testing.T) {
	turns := []Turn{
		{Seq: 0, Speaker: "A", Text: "The remote control casing should be rubber.", StartMS: 0, EndMS: 1000},
		{Seq: 1, Speaker: "B", Text: "The remote control casing costs more in plastic.", StartMS: 1000, EndMS: 2000},
		{Seq: 2, Speaker: "A", Text: "So the remote control casing is the main question.", StartMS: 2000, EndMS: 3000},
	}
	for _, tt := range []struct{ give, want string }{
		{"casing · rubber · plastic", "Remote control casing"},
		{"Topic_0_2", "Remote control casing"},
		{"", "Remote control casing"},
		{"Casing material", "Casing material"},
	} {
		it := AgendaItem{Title: tt.give, StartSeq: 0, EndSeq: 2}
		retitle(&it, turns)
		if it.Title != tt.want || it.StartMS != 0 || it.EndMS != 3000 {
			t.Errorf("retitle(%q) = %q %d-%d ms, want %q 0-3000 ms", tt.give, it.Title, it.StartMS, it.EndMS, tt.want)
		}
	}
}
