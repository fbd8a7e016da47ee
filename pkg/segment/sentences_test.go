package segment

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanText(t *testing.T) {
	tests := []struct{ give, want string }{
		{give: "It 's the the {disfmarker} remote , um , control .", want: "It's the remote, control."},
		{give: "We don't {vocalsound} need it ? Yeah .", want: "We don't need it? Yeah."},
		{give: "Uh , so {gap} , the budget .", want: ", so, the budget."},
		{give: "네, 그럼   배터리 얘기부터 하죠.", want: "네, 그럼 배터리 얘기부터 하죠."},
	}
	for _, tt := range tests {
		if got := cleanText(tt.give); got != tt.want {
			t.Errorf("cleanText(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		give string
		want []string
	}{
		{give: "It works. Does it? Yes! Version 2.5 is out", want: []string{"It works.", "Does it?", "Yes!", "Version 2.5 is out"}},
		{give: "배터리는 충전식으로 합니다. 단가는 확인하죠.", want: []string{"배터리는 충전식으로 합니다.", "단가는 확인하죠."}},
		{give: "", want: nil},
	}
	for _, tt := range tests {
		if got := splitSentences(tt.give); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitSentences(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

func TestTidySentence(t *testing.T) {
	tests := []struct{ give, want string }{
		{give: "so, okay, we go with rubber.", want: "We go with rubber."},
		{give: ", and the case", want: "The case"},
		{give: "그럼 이제 배터리 얘기를 하죠.", want: "배터리 얘기를 하죠."},
		{give: "Yeah.", want: "Yeah."},
		{give: "네 번째 멤버를 초대하면 trial이에요.", want: "네 번째 멤버를 초대하면 trial이에요."},
		{give: "네 그럼 두 명으로 하죠.", want: "두 명으로 하죠."},
	}
	for _, tt := range tests {
		if got := tidySentence(tt.give); got != tt.want {
			t.Errorf("tidySentence(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

func TestTrimRunes(t *testing.T) {
	tests := []struct {
		give string
		max  int
		want string
	}{
		{give: "short enough", max: 20, want: "short enough"},
		{give: "exactly twenty chars", max: 20, want: "exactly twenty chars"},
		{give: "the rechargeable battery, and the dock", max: 27, want: "the rechargeable battery…"},
		{give: "one two three", max: 8, want: "one two…"},
		{give: "supercalifragilistic", max: 10, want: "supercali…"},
		{give: "충전식 배터리로 결정했습니다", max: 10, want: "충전식 배터리로…"},
	}
	for _, tt := range tests {
		got := trimRunes(tt.give, tt.max)
		if got != tt.want {
			t.Errorf("trimRunes(%q, %d) = %q, want %q", tt.give, tt.max, got, tt.want)
		}
		if utf8.RuneCountInString(got) > tt.max {
			t.Errorf("trimRunes(%q, %d) = %q is too long", tt.give, tt.max, got)
		}
	}
	long := strings.Repeat("가나다 ", 100)
	if got := trimRunes(long, MaxSummaryRunes); utf8.RuneCountInString(got) > MaxSummaryRunes || !strings.HasSuffix(got, "다…") {
		t.Errorf("trimRunes(long Korean) = %q", got)
	}
}
