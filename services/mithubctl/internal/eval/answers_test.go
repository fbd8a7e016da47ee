package eval

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/meetingctx"
)

func TestScoredText(t *testing.T) {
	in := "Extracted from the transcript (local provider):\n- Grad: we bought two mics [3]\n- Professor: the wireless ones [4, 5]\n⚠ Some cited turns have low transcription confidence: [3]"
	if got, want := ScoredText(in), "Grad: we bought two mics Professor: the wireless ones"; got != want {
		t.Errorf("ScoredText = %q, want %q", got, want)
	}
	// One line is never taken for a lead line.
	if got := ScoredText("They agreed on a budget [2]."); got != "They agreed on a budget ." {
		t.Errorf("one line = %q", got)
	}
}

func TestBaselinesCutToLength(t *testing.T) {
	turns := []meetingctx.Turn{{Seq: 0, Text: "a b c"}, {Seq: 1, Text: "d e"}, {Seq: 2, Text: "f g h i"}, {Seq: 3, Text: "j"}}
	// Ranked 2 then 0: 4 words reach n=5 only with turn 0 too; meeting order, cut to 5.
	text, used := bm25Cut(turns, []int{2, 0, 1}, 5)
	if text != "a b c f g" || len(used) != 2 || used[0] != 0 || used[1] != 2 {
		t.Errorf("bm25Cut = %q %v", text, used)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 20 {
		text, used := randomRun(turns, rng, 3)
		if n := len(strings.Fields(text)); n > 3 || n == 0 {
			t.Fatalf("randomRun gave %d words: %q", n, text)
		}
		for k := 1; k < len(used); k++ {
			if used[k] != used[k-1]+1 {
				t.Fatalf("randomRun turns not contiguous: %v", used)
			}
		}
	}
}

func TestAnswerSummary(t *testing.T) {
	mk := func(r1 float64, cited int) MeetingResult {
		r := MeetingResult{Name: "A", Queries: 2, Seg: map[string]Seg{}, Ret: map[string]Ret{}, Ans: map[string]Ans{}}
		for _, m := range ansMethods {
			r.Ans[m] = Ans{N: 2, R1: r1, R2: r1 / 2, RL: r1, Cited: cited, Words: 100}
		}
		return r
	}
	rep := Report{Meetings: []MeetingResult{mk(0.6, 2), mk(0.2, 0)}}
	rep.Overall = rep.summarize()
	a := rep.Overall.Answers[0]
	if a.Method != AnsOurs || a.R1 < 19.999 || a.R1 > 20.001 || a.CitingSpan != 0.5 || a.Words != 50 {
		t.Fatalf("answers summary %+v", a)
	}
	var b bytes.Buffer
	rep.Markdown(&b)
	if !strings.Contains(b.String(), "| mithub | 20.0 | 10.0 | 20.0 | 0.500 | 50.0 |") {
		t.Errorf("markdown lacks the answers row:\n%s", b.String())
	}
}
