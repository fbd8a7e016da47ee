package room

import (
	"testing"

	"github.com/mithub/mithub/pkg/askmode"
)

func TestAskMode(t *testing.T) {
	tests := []struct {
		give string
		want askmode.Mode
	}{
		{give: "What did I miss?", want: askmode.CatchUp},
		{give: "내가 놓친 거 알려줘", want: askmode.CatchUp},
		{give: "What is the launch date?", want: askmode.Answer},
		{give: "", want: askmode.Answer},
	}
	for _, tt := range tests {
		if got := askMode(tt.give); got != tt.want {
			t.Errorf("askMode(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}
