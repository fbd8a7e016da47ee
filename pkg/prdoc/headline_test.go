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
