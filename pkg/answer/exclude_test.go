package answer_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/askmode"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/tokens"
	"github.com/mithub/mithub/pkg/wakeword"
)

// excludeTurns: a meeting where the questions to the bot share the most
// words with the questions themselves, so an answer that may cite them
// does.
func excludeTurns() []meetingctx.Turn {
	texts := []struct{ seg, who, text string }{
		{"t0", "kim", "The launch date is March 3rd, we agreed on it last week."},
		{"t1", "lee", "Marketing needs the launch assets two weeks before."},
		{"t2", "amy", "Hey MitHub, what is the launch date we agreed on?"}, // wake word + question
		{"t3", "kim", "밋허브야"},                                              // bare wake word
		{"t4", "kim", "출시일이 언제로 정해졌지? launch date"},                        // its question, within 8 s
		{"t5", "lee", "what is the launch date again, I forgot the launch date"},
		{"t6", "amy", "MitHub."},                             // bare wake word …
		{"t7", "amy", "launch date launch date launch date"}, // … answered 20 s later: not the question
	}
	ts := make([]meetingctx.Turn, len(texts))
	at := []int64{0, 10_000, 20_000, 30_000, 33_000, 40_000, 50_000, 80_000}
	for i, x := range texts {
		ts[i] = meetingctx.Turn{Seq: i, SegmentID: x.seg, SpeakerID: x.who, SpeakerName: x.who, Text: x.text,
			StartMS: at[i], EndMS: at[i] + 2000, Confidence: 0.95}
	}
	return ts
}

// TestExcludeQuestionTurns: with an Exclusion, no mode puts the
// question's own turn, another wake-word turn or the question after a
// bare wake word in the context, and the extractive answer never cites
// them; without one they are cited (so the test can fail).
func TestExcludeQuestionTurns(t *testing.T) {
	c, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	excl := &answer.Exclusion{Segments: map[string]bool{"t5": true}, Wake: wakeword.MustDefault()}
	never := map[string]bool{"t2": true, "t3": true, "t4": true, "t5": true, "t6": true}
	for _, mode := range askmode.Modes() {
		for _, withExcl := range []bool{false, true} {
			ts := excludeTurns()
			in := answer.Input{Mode: mode, Question: "what is the launch date?", Recent: ts, Pending: ts, Since: ts,
				Searched: []answer.SearchedTopic{{Turns: ts}}, Counter: c, Budget: 4000}
			if withExcl {
				in.Exclude = excl
			}
			got, err := answer.Build(in)
			if err != nil {
				t.Fatal(err)
			}
			inCtx := map[string]bool{}
			for _, tr := range got.Turns {
				inCtx[tr.SegmentID] = true
			}
			ans, err := (answer.Extractive{MinWords: 400, MaxWords: 400}).Answer(context.Background(), got, mode, "what is the launch date?", func(string) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			cited := map[string]bool{}
			for _, ci := range ans.Citations {
				cited[got.Turns[ci.N-1].SegmentID] = true
			}
			if !withExcl {
				if !inCtx["t2"] || !inCtx["t5"] {
					t.Errorf("%s without exclusion: context %v lacks the question turns; the test proves nothing", mode, inCtx)
				}
				if mode == askmode.Answer && !cited["t2"] && !cited["t5"] {
					t.Errorf("without exclusion the answer cites %v, not the question turns; the test proves nothing", cited)
				}
				continue
			}
			for seg := range never {
				if inCtx[seg] || cited[seg] {
					t.Errorf("%s: excluded turn %s in the context (%v) or cited (%v)", mode, seg, inCtx[seg], cited[seg])
				}
			}
			for _, seg := range []string{"t0", "t1", "t7"} {
				if !inCtx[seg] {
					t.Errorf("%s: turn %s left out although it is evidence", mode, seg)
				}
			}
		}
	}
}

// BenchmarkBuildExclude packs a 2,000-turn catch-up period with and
// without the wake-word exclusion, to show what the exclusion costs.
func BenchmarkBuildExclude(b *testing.B) {
	c, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		b.Fatal(err)
	}
	turns := randomTurns(rand.New(rand.NewPCG(1, 2)), c, 2000)
	for _, excl := range []*answer.Exclusion{nil, {Wake: wakeword.MustDefault()}} {
		name := "none"
		if excl != nil {
			name = "wake"
		}
		b.Run(name, func(b *testing.B) {
			in := answer.Input{Mode: askmode.CatchUp, Question: "what did I miss?", Since: turns, Counter: c,
				Budget: tokens.NewBudget(128_000, 1024).Available(), StoredTokens: true, Exclude: excl}
			for b.Loop() {
				if _, err := answer.Build(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestExcludeIndexedTurnsPerMatcher: indexes shared by asks, and a memo
// for turns outside them, keep what a matcher found in each turn, so the
// result must follow the matcher: the same turns under another matcher
// are matched again.
func TestExcludeIndexedTurnsPerMatcher(t *testing.T) {
	c, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	jarvis, err := wakeword.New(wakeword.Config{Names: []string{"jarvis"}})
	if err != nil {
		t.Fatal(err)
	}
	ts := excludeTurns()
	ts[1].Text = "Jarvis, when do marketing assets go out?"
	idx := answer.NewTurnIndex(ts)
	inContext := func(m *wakeword.Matcher, indexed bool) map[string]bool {
		in := answer.Input{Mode: askmode.Answer, Question: "what is the launch date?", Counter: c, Budget: 4000,
			Exclude: &answer.Exclusion{Wake: m}}
		if indexed {
			in.Searched = []answer.SearchedTopic{{Index: idx, Order: []int{0, 1, 2, 3, 4, 5, 6, 7}}}
		} else {
			in.Recent = ts
		}
		got, err := answer.Build(in)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, tr := range got.Turns {
			out[tr.SegmentID] = true
		}
		return out
	}
	for round := range 4 {
		indexed := round%2 == 0
		if got := inContext(wakeword.MustDefault(), indexed); got["t2"] || got["t6"] || !got["t1"] {
			t.Fatalf("round %d (indexed %v), default names: context %v, want t2 and t6 out, t1 in", round, indexed, got)
		}
		if got := inContext(jarvis, indexed); !got["t2"] || !got["t6"] || got["t1"] {
			t.Fatalf("round %d (indexed %v), jarvis: context %v, want t2 and t6 in, t1 out", round, indexed, got)
		}
	}
}
