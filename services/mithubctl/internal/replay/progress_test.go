package replay

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// steppedNow returns a clock that starts at t0 and reads t0+step on every
// later call.
func steppedNow(step time.Duration) func() time.Time {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	calls := 0
	return func() time.Time {
		defer func() { calls++ }()
		if calls == 0 {
			return t0
		}
		return t0.Add(step)
	}
}

func TestProgressLine(t *testing.T) {
	p := newProgress(&bytes.Buffer{}, 533, false, steppedNow(2*time.Second))
	tests := []struct {
		give int
		want string
	}{
		{give: 0, want: "[--------------------] 0/533 0% 0 utt/s"},
		{give: 250, want: "[#########-----------] 250/533 47% 125 utt/s"},
		{give: 532, want: "[###################-] 532/533 99% 266 utt/s"},
		{give: 533, want: "[####################] 533/533 100% 266 utt/s"},
	}
	for _, tt := range tests {
		if got := p.line(tt.give); got != tt.want {
			t.Errorf("line(%d) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

func TestProgressNotATerminal(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, 533, false, steppedNow(time.Second))
	for done := 50; done < 533; done += 50 {
		p.update(done)
	}
	p.update(533)
	p.finish()

	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	// 50..500 cross the 10% steps at 100, 150, 200, 250, 300, 350, 400,
	// 450, 500 (90%), and 533 is 100%.
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 10:\n%s", len(lines), out.String())
	}
	if !strings.HasPrefix(lines[0], "[###-") || !strings.Contains(lines[0], " 100/533 ") ||
		!strings.Contains(lines[9], " 533/533 100% ") || strings.Contains(out.String(), "\r") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestProgressTerminal(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, 10, true, steppedNow(time.Second))
	p.update(5)
	p.update(10)
	if strings.Contains(out.String(), "\n") {
		t.Errorf("redrawn line contains a newline before finish: %q", out.String())
	}
	p.finish()
	want := "\r[##########----------] 5/10 50% 5 utt/s\x1b[K\r[####################] 10/10 100% 10 utt/s\x1b[K\n"
	if out.String() != want {
		t.Errorf("output = %q, want %q", out.String(), want)
	}
}
