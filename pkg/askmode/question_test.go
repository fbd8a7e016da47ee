package askmode_test

import (
	"testing"

	"github.com/mithub/mithub/pkg/askmode"
)

func TestOfQuestion(t *testing.T) {
	for q, want := range map[string]askmode.Mode{
		"What did I miss?":                     askmode.CatchUp,
		"Hey MitHub, catch me up please":       askmode.CatchUp,
		"BRING ME  UP TO SPEED":                askmode.CatchUp,
		"내가 놓친 거 알려줘":                          askmode.CatchUp,
		"회의 못 들었는데 정리해줘":                       askmode.CatchUp,
		"What did we decide about the budget?": askmode.Answer,
		"예산은 누가 맡기로 했어?":                       askmode.Answer,
		"":                                     askmode.Answer,
	} {
		if got := askmode.OfQuestion(q); got != want {
			t.Errorf("OfQuestion(%q) = %q, want %q", q, got, want)
		}
		if got := askmode.IsCatchUp(q); got != (want == askmode.CatchUp) {
			t.Errorf("IsCatchUp(%q) = %v", q, got)
		}
	}
}
