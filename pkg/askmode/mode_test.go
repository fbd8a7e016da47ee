package askmode_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/askmode"
)

func TestParse(t *testing.T) {
	tests := []struct {
		give string
		want askmode.Mode
	}{
		{give: "", want: askmode.Answer},
		{give: "answer", want: askmode.Answer},
		{give: "catch_up", want: askmode.CatchUp},
	}
	for _, tt := range tests {
		got, err := askmode.Parse(tt.give)
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", tt.give, got, err, tt.want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		give string
		want string
	}{
		{give: "shout", want: `mode must be one of answer, catch_up, not "shout"`},
		{give: "Answer", want: `mode must be one of answer, catch_up, not "Answer"`},
		{give: "pr", want: `mode must be one of answer, catch_up, not "pr"`},
		{give: strings.Repeat("가", 30), want: `not "` + strings.Repeat("가", 20) + `…"`},
	}
	for _, tt := range tests {
		got, err := askmode.Parse(tt.give)
		if err == nil || got != "" || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %q, %v; want an error containing %s", tt.give, got, err, tt.want)
		}
	}
}

func TestModes(t *testing.T) {
	ms := askmode.Modes()
	if len(ms) == 0 || ms[0] != askmode.Default {
		t.Fatalf("Modes() = %v, want Default first", ms)
	}
	for _, m := range ms {
		if !m.Valid() {
			t.Errorf("%q is listed but not valid", m)
		}
		if got, err := askmode.Parse(m.String()); err != nil || got != m {
			t.Errorf("Parse(%q) = %q, %v", m, got, err)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(ms)))) != len(ms) {
		t.Errorf("Modes() has duplicates: %v", ms)
	}
	ms[0] = "changed"
	if askmode.Modes()[0] != askmode.Default {
		t.Error("Modes() shares its backing array with the caller")
	}
	if askmode.Mode("").Valid() {
		t.Error(`"" is valid; it is only Parse's shorthand for Default`)
	}
}
