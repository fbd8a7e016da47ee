package answer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/askmode"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/tokens"
)

var words = strings.Fields(`budget schedule design remote control battery 회의 예산 일정 디자인 리모컨 배터리
	the team agreed that we should ship the prototype next week 다음 주까지 시제품을 완성하기로 했습니다
	marketing research shows users want fewer buttons 사용자들은 버튼이 적은 것을 원합니다 decision action`)

// speakerNames mix scripts, digits and punctuation, and an empty name
// (the line shows the speaker id).
var speakerNames = []string{"Speaker 1", "김민수", "Dr. O'Neil", "3PO", "", "박 팀장", "Zoë-Ann", "R2"}

func randomTurns(rng *rand.Rand, c tokens.Counter, n int) []meetingctx.Turn {
	ts := make([]meetingctx.Turn, n)
	var at int64
	for i := range ts {
		var sb strings.Builder
		for w := 0; w < 3+rng.IntN(60); w++ {
			sb.WriteString(words[rng.IntN(len(words))] + " ")
		}
		at += int64(1000 + rng.IntN(20000))
		text := strings.TrimSpace(sb.String())
		ts[i] = meetingctx.Turn{
			Seq: i, SegmentID: fmt.Sprint(i), SpeakerID: fmt.Sprintf("s%d", rng.IntN(4)), SpeakerName: speakerNames[rng.IntN(len(speakerNames))],
			Text: text, StartMS: at, EndMS: at + 900, Confidence: rng.Float32(), Tokens: c.Count(text),
		}
	}
	return ts
}

func randomInput(rng *rand.Rand, c tokens.Counter, mode askmode.Mode, window int) answer.Input {
	turns := randomTurns(rng, c, 1+rng.IntN(600))
	var topics []meetingctx.Topic
	for start := 0; start < len(turns); {
		end := min(start+5+rng.IntN(60), len(turns)-1)
		topics = append(topics, meetingctx.Topic{Seq: len(topics), Title: "topic " + fmt.Sprint(len(topics)),
			Summary: turns[start].Text, Keywords: []string{"예산", "budget"}, StartSeq: start, EndSeq: end,
			StartMS: turns[start].StartMS, EndMS: turns[end].EndMS})
		start = end + 1
	}
	cut := rng.IntN(len(turns))
	in := answer.Input{
		Mode: mode, Question: "What did we decide about the 예산 budget? " + strings.Repeat("really ", rng.IntN(20)),
		Facts:   answer.Facts{ID: "m1", Title: "Design review 디자인 리뷰", Language: "ko", Turns: len(turns)},
		Pending: turns[cut:], Recent: turns[max(0, len(turns)-25):], Topics: topics,
		Speakers:   []meetingctx.Speaker{{ID: "s1", Name: "Kim", Turns: 3, Role: "facilitator"}},
		MemoryBank: strings.Repeat("Decision ledger entry. 결정 사항. ", rng.IntN(3000)),
		Counter:    c, Budget: tokens.NewBudget(window, 1024).Available(),
		StoredTokens: rng.IntN(2) == 0, Exact: true,
	}
	if rng.IntN(2) == 0 {
		in.Previous = &answer.Exchange{Question: "who owns the budget?", Answer: strings.Repeat("Kim does. ", 30)}
	}
	indexed := rng.IntN(2) == 0
	for _, tp := range topics[:min(3, len(topics))] {
		st := answer.SearchedTopic{Topic: meetingctx.ScoredTopic{Topic: tp}, Turns: turns[tp.StartSeq : tp.EndSeq+1]}
		if indexed {
			st.Index = answer.NewTurnIndex(st.Turns)
			st.Order, st.Turns = st.Index.Ranked(in.Question), nil
		}
		in.Searched = append(in.Searched, st)
	}
	switch mode {
	case askmode.CatchUp:
		in.SinceMS = turns[rng.IntN(len(turns))].StartMS
		in.Since = turns // the builder must drop what is before SinceMS
	}
	return in
}

// For any meeting and window, the packed context fits the budget, keeps
// the question, numbers every turn it shows, and a catch-up shows no turn
// from before the period.
func TestBuildProperties(t *testing.T) {
	for _, enc := range []string{tokens.CL100K, tokens.O200K} {
		t.Run(enc, func(t *testing.T) { testBuildProperties(t, enc) })
	}
}

func testBuildProperties(t *testing.T, enc string) {
	c, err := tokens.ForEncoding(enc)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, window := range []int{4096, 8192, 128_000} {
		for _, mode := range askmode.Modes() {
			for i := range 50 {
				in := randomInput(rng, c, mode, window)
				got, err := answer.Build(in)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("window %d %s #%d", window, mode, i)
				if real := c.Count(got.System) + c.Count(got.User) + answer.FramingTokens; real > got.Total || real != got.ExactTotal || got.Total > in.Budget {
					t.Fatalf("%s: total %d (exact %d, recount %d) over budget %d", name, got.Total, got.ExactTotal, real, in.Budget)
				}
				if got.User != in.Question {
					t.Fatalf("%s: question not kept: %q", name, got.User)
				}
				seen := map[int]bool{}
				for n, turn := range got.Turns {
					if !strings.Contains(got.System, fmt.Sprintf("[%d] %s", n+1, answer.Clock(turn.StartMS))) {
						t.Fatalf("%s: turn [%d] not in the prompt", name, n+1)
					}
					if seen[turn.Seq] {
						t.Fatalf("%s: turn seq %d shown twice", name, turn.Seq)
					}
					seen[turn.Seq] = true
					if mode == askmode.CatchUp && turn.StartMS < in.SinceMS {
						t.Fatalf("%s: catch-up shows turn at %d ms before since_ms %d", name, turn.StartMS, in.SinceMS)
					}
				}
				if len(got.Turns) == 0 {
					t.Fatalf("%s: no turn fits %d tokens", name, in.Budget)
				}
			}
		}
	}
}

// Sections claim the budget in priority order: with room for little,
// the searched topics' turns win over the memory bank.
func TestBuildPriority(t *testing.T) {
	c, _ := tokens.ForEncoding(tokens.CL100K)
	turns := randomTurns(rand.New(rand.NewPCG(3, 4)), c, 40)
	in := answer.Input{
		Mode: askmode.Answer, Question: "what about the battery?", Counter: c,
		Searched:   []answer.SearchedTopic{{Turns: turns[:10]}},
		Recent:     turns[30:],
		MemoryBank: strings.Repeat("old decision ", 400),
	}
	base, _ := answer.Build(answer.Input{Mode: askmode.Answer, Question: in.Question, Counter: c, Budget: 100000})
	in.Budget = base.Total + 400
	got, err := answer.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	secs := map[string]answer.Section{}
	for _, s := range got.Sections {
		secs[s.Name] = s
	}
	if secs["searched_topics"].Items == 0 {
		t.Fatalf("searched turns dropped: %+v", got.Sections)
	}
	if secs["memory_bank"].Items != 0 && !secs["memory_bank"].Truncated {
		t.Fatalf("memory bank admitted whole before turns: %+v", got.Sections)
	}
	if got.Total > in.Budget {
		t.Fatalf("total %d over %d", got.Total, in.Budget)
	}
}

func TestBuildRejectsUnknownMode(t *testing.T) {
	c, _ := tokens.ForEncoding(tokens.CL100K)
	if _, err := answer.Build(answer.Input{Mode: "poem", Counter: c, Budget: 1000}); err == nil {
		t.Fatal("unknown mode accepted")
	}
}

// Searched topics given as an index and a ranking pack exactly as the
// same turns given in that order.
func TestBuildIndexedSearchedTopics(t *testing.T) {
	c, _ := tokens.ForEncoding(tokens.CL100K)
	turns := randomTurns(rand.New(rand.NewPCG(7, 8)), c, 300)
	q := "budget 예산 battery"
	var plain, indexed []answer.SearchedTopic
	for _, r := range [][2]int{{0, 120}, {120, 300}} {
		x := answer.NewTurnIndex(turns[r[0]:r[1]])
		order := x.Ranked(q)
		st := answer.SearchedTopic{}
		for _, j := range order {
			st.Turns = append(st.Turns, x.Docs[j].Turn)
		}
		plain = append(plain, st)
		indexed = append(indexed, answer.SearchedTopic{Index: x, Order: order})
	}
	in := answer.Input{Mode: askmode.Answer, Question: q, Counter: c, Budget: 3000, StoredTokens: true, Searched: plain}
	want, err := answer.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Searched = indexed
	got, err := answer.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if got.System != want.System || got.Total != want.Total || len(got.Turns) == 0 {
		t.Fatalf("indexed build differs: %d turns, %d tokens; plain %d turns, %d tokens", len(got.Turns), got.Total, len(want.Turns), want.Total)
	}
	// Without the prompt text, the same turns and the same accounting.
	in.TurnsOnly = true
	bare, err := answer.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if bare.System != "" || bare.Total != got.Total || fmt.Sprint(bare.Turns) != fmt.Sprint(got.Turns) || fmt.Sprint(bare.Sections) != fmt.Sprint(got.Sections) {
		t.Fatalf("TurnsOnly changed the packing: %d turns, %d tokens, system %d bytes", len(bare.Turns), bare.Total, len(bare.System))
	}
	if answer.ReadsPrompt(answer.Extractive{}) || !answer.ReadsPrompt(answer.Chat{}) {
		t.Fatal("only the model answerer reads the prompt")
	}
	// The extractive answer scores indexed turns from their terms.
	nop := func(string) error { return nil }
	wa, err := answer.Extractive{}.Answer(context.Background(), want, askmode.Answer, q, nop)
	if err != nil {
		t.Fatal(err)
	}
	ga, err := answer.Extractive{}.Answer(context.Background(), got, askmode.Answer, q, nop)
	if err != nil {
		t.Fatal(err)
	}
	if ga.Text != wa.Text || len(ga.Citations) == 0 {
		t.Fatalf("indexed answer %q, plain answer %q", ga.Text, wa.Text)
	}
}
