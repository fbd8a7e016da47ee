package textutil_test

import (
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/textutil"
)

func TestStemmed(t *testing.T) {
	tests := []struct {
		give, want string
	}{
		{"The remote control's buttons were discussed", "remot control button discuss"},
		{"one button, discussion", "button discuss"},
		{"회의에서 예산을 논의했습니다", "회의 예산 논의했"},
		{"Q3 OKR sales café", "q3 okr sale café"},
	}
	for _, tt := range tests {
		got := textutil.Stemmed(nil, tt.give)
		if s := strings.Join(got, " "); s != tt.want {
			t.Errorf("Stemmed(%q) = %q, want %q", tt.give, s, tt.want)
		}
		if n := len(textutil.Terms(nil, tt.give)); n != len(got) {
			t.Errorf("Stemmed(%q) gives %d terms, Terms %d", tt.give, len(got), n)
		}
	}
	// It appends.
	if got := textutil.Stemmed([]string{"x"}, "meetings"); strings.Join(got, " ") != "x meet" {
		t.Errorf("Stemmed appending: %q", got)
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		give, want string
	}{
		{"The remote control's battery life!", "remote control battery life"},
		{"회의에서 배터리를 논의했습니다", "회의 battery 논의했"},
		{"다음 분기 로드맵은 김민수가 정리합니다", "다음 분기 roadmap 김민수 정리"},
		{"Q3 OKR 2026년 목표", "q3 okr 2026년 목표"},
		{"Um , yeah . {disfmarker} OK", "disfmarker"},
		// Korean written onto English words and names.
		{"sync는 API를 iOS랑 Android에서 테스트", "sync api ios android test"},
		{"David님이 blocker예요, PR팀 seat당", "david blocker pr team seat 당"},
		{"3월 25일까지 QA팀에서", "3월 25일 qa team"},
		{"서연 님, 팀API", "서연 team api"},
	}
	for _, tt := range tests {
		if got := strings.Join(textutil.Terms(nil, tt.give), " "); got != tt.want {
			t.Errorf("Terms(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

// A Hangul spelling of an English word is the English word's term, with
// or without a particle, so a task said in one language and repeated in
// the other shares its terms; Korean words that are no spelling stay.
func TestTermsReadLoanwordsAsEnglish(t *testing.T) {
	tests := []struct {
		give, want string
	}{
		{"conflict 테스트 플랜 3월 17일까지", "conflict test plan 3월 17일"},
		{"I'll write the conflict test plan", "ll write conflict test plan"},
		{"대시보드는 제가 만들게요", "dashboard 제 만들게"},
		// "로고" ends in a syllable that is also a particle.
		{"로고 로고는 로고가", "logo logo logo"},
		{"스크린샷을 다시 찍어서", "screenshot 다시 찍어서"},
		// Translations are not spellings: 일정 stays.
		{"PagerDuty 일정", "pagerduty 일정"},
	}
	for _, tt := range tests {
		if got := strings.Join(textutil.Terms(nil, tt.give), " "); got != tt.want {
			t.Errorf("Terms(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
	if got := strings.Join(textutil.WithSpellings([]string{"dashboard", "일정"}), " "); got != "dashboard 일정 대시보드 대쉬보드" {
		t.Errorf("WithSpellings = %q", got)
	}
	// Stemmed reads them as English words, as ROUGE stems them.
	if got := strings.Join(textutil.Stemmed(nil, "스크린샷 screenshots 테스트를 testing"), " "); got != "screenshot screenshot test test" {
		t.Errorf("Stemmed = %q", got)
	}
}

func TestFoldPlural(t *testing.T) {
	for give, want := range map[string]string{"parties": "party", "buttons": "button", "class": "class", "ties": "tie", "예산": "예산", "is": "is"} {
		if got := textutil.FoldPlural(give); got != want {
			t.Errorf("FoldPlural(%q) = %q, want %q", give, got, want)
		}
	}
}

func TestSpokenWords(t *testing.T) {
	for _, tt := range []struct {
		give string
		want int
	}{
		{"", 0},
		{"We moved the launch by a week.", 7},
		{"출시일은 한 주 미뤘어요", 5},       // 4+1+1+4 syllables
		{"무료 좌석은 3개로 하기로 하죠.", 6},  // 2+3+2+3+2 syllables
		{"Team 요금제는 무료 3 seat", 6}, // three words and 4+2 syllables
		{"좌석 3 seat까지", 3},         // 2 syllables, a word, 2 syllables: 2.5 rounded up
	} {
		if got := textutil.SpokenWords(tt.give); got != tt.want {
			t.Errorf("SpokenWords(%q) = %d, want %d", tt.give, got, tt.want)
		}
	}
}
