package textutil_test

import (
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/textutil"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		give, want string
	}{
		{"The remote control's battery life!", "remote control battery life"},
		{"회의에서 배터리를 논의했습니다", "회의 배터리 논의했"},
		{"다음 분기 로드맵은 김민수가 정리합니다", "다음 분기 로드맵 김민수 정리"},
		{"Q3 OKR 2026년 목표", "q3 okr 2026년 목표"},
		{"Um , yeah . {disfmarker} OK", "disfmarker"},
	}
	for _, tt := range tests {
		if got := strings.Join(textutil.Terms(nil, tt.give), " "); got != tt.want {
			t.Errorf("Terms(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}
