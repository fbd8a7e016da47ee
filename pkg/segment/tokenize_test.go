package segment

import (
	"strings"
	"testing"
)

func terms(text string) string { return strings.Join(contentTerms(text), " ") }

func TestTokenizeEnglish(t *testing.T) {
	tests := []struct {
		give, want string
	}{
		{give: "The remote control's batteries are running low!", want: "remote control battery running low"},
		{give: "Um , yeah . {disfmarker} OK , so {vocalsound} the buttons", want: "button"},
		{give: "We 'll need a process for status analysis", want: "process status analysis"},
		{give: "Mm-hmm .", want: ""},
		{give: "Q3 OKR for 2026", want: "q3 okr 2026"},
		{give: "{gap} {comment}", want: ""},
		{give: "Café résumé naïve", want: "café résumé naïve"},
	}
	for _, tt := range tests {
		if got := terms(tt.give); got != tt.want {
			t.Errorf("terms(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

func TestTokenizeKorean(t *testing.T) {
	tests := []struct {
		give, want string
	}{
		// Particles and endings come off; 회의, 결과, 중요 are whole words.
		{give: "회의에서는 배터리를 논의했습니다", want: "회의 배터리 논의"},
		{give: "회의 결과가 중요합니다", want: "회의 결과 중요"},
		{give: "다음 분기 로드맵은 민수가 정리합니다", want: "다음 분기 로드맵 민수 정리"},
		{give: "팀은 예산을 확인했어요", want: "팀 예산 확인"},
		// Script changes split words: "API를" is "api" plus a particle.
		{give: "API를 배포하는 일정이", want: "api 배포 일정"},
		{give: "네 음 그냥 좀 그렇죠", want: ""},
		{give: "디자인팀과 마케팅팀의 협업", want: "디자인팀 마케팅팀 협업"},
		// Honorifics after a name, and counters after digits, are no terms.
		{give: "David님이 3월 25일까지 서연 님한테 5명 보내요", want: "david 25 서연 보내"},
		{give: "2분기 마감", want: "분기 마감"},
		{give: "3 월 정산", want: "월 정산"},
		{give: "이번 분기 마감", want: "이번 분기 마감"},
	}
	for _, tt := range tests {
		if got := terms(tt.give); got != tt.want {
			t.Errorf("terms(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

// A verb or adjective form names no topic: it is no keyword.
func TestKoreanPredicate(t *testing.T) {
	tests := []struct {
		give string
		want bool
	}{
		{"나오면", true}, {"보내고", true}, {"정리합니다", true}, {"확인했어요", true},
		{"화면", false}, {"광고", false}, {"데이터베이스", false}, {"회의에서는", false}, {"배터리를", false},
	}
	for _, tt := range tests {
		if _, got := koreanTerm(tt.give); got != tt.want {
			t.Errorf("koreanTerm(%q) predicate = %v, want %v", tt.give, got, tt.want)
		}
	}
}

func TestFoldPlural(t *testing.T) {
	tests := []struct{ give, want string }{
		{"batteries", "battery"}, {"buttons", "button"}, {"process", "process"}, {"status", "status"},
		{"analysis", "analysis"}, {"classes", "class"}, {"bus", "bus"}, {"its", "its"}, {"addresses", "address"},
	}
	for _, tt := range tests {
		if got := foldPlural(tt.give); got != tt.want {
			t.Errorf("foldPlural(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

func TestFillerTurn(t *testing.T) {
	tests := []struct {
		give string
		want bool
	}{
		{"Mm-hmm .", true}, {"Yeah .", true}, {"OK .", true}, {"{disfmarker}", true}, {"네", true}, {"음", true},
		{"", true}, {"Yeah , the battery .", false}, {"네, 배터리요", false},
	}
	for _, tt := range tests {
		a := analyse(tt.give)
		if got := len(a.bag) == 0 && a.nwords == 0; got != tt.want {
			t.Errorf("filler(%q) = %v, want %v", tt.give, got, tt.want)
		}
	}
}

func TestMarkupLen(t *testing.T) {
	tests := []struct {
		give string
		want int
	}{
		{"{disfmarker} x", 12}, {"{}", 0}, {"{a b}", 0}, {"{unclosed", 0}, {"{vocalsound}", 12},
	}
	for _, tt := range tests {
		if got := markupLen(tt.give); got != tt.want {
			t.Errorf("markupLen(%q) = %d, want %d", tt.give, got, tt.want)
		}
	}
}

func TestTokenizeOtherScripts(t *testing.T) {
	tests := []struct {
		give, want string
	}{
		{give: "th the UI and TV wh", want: "ui tv"},
		{give: "会议 記録", want: "会议 記録"},
		{give: "invalid \xff utf8", want: "invalid utf8"},
	}
	for _, tt := range tests {
		if got := terms(tt.give); got != tt.want {
			t.Errorf("terms(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}
