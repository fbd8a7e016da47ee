package answer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/askmode"
	"github.com/mithub/mithub/pkg/llm/openai"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/tokens"
)

func meetingTurns() []meetingctx.Turn {
	texts := []struct{ who, text string }{
		{"Kim", "Let's start with the schedule for the remote control project."},
		{"Lee", "The battery supplier wants an answer by Friday, so we need to decide on the battery."},
		{"Park", "I think the kinetic battery is too expensive for our budget."},
		{"Kim", "예산 문제로 배터리는 일반 건전지로 가기로 결정했습니다."},
		{"Lee", "디자인 시안은 다음 주 월요일까지 박 대리님이 준비해 주세요."},
		{"Park", "Okay, I will prepare the design drafts by Monday."},
	}
	ts := make([]meetingctx.Turn, len(texts))
	for i, x := range texts {
		ts[i] = meetingctx.Turn{Seq: i, SpeakerID: strings.ToLower(x.who), SpeakerName: x.who, Text: x.text,
			StartMS: int64(i) * 30_000, EndMS: int64(i)*30_000 + 5000, Confidence: 0.95}
	}
	ts[2].Confidence = 0.4
	return ts
}

func build(t *testing.T, mode askmode.Mode, q string) answer.Context {
	t.Helper()
	c, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	got, err := answer.Build(answer.Input{Mode: mode, Question: q, Recent: meetingTurns(), Counter: c, Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func collect(t *testing.T, a answer.Answerer, c answer.Context, mode askmode.Mode, q string) (answer.Answer, string) {
	t.Helper()
	var streamed strings.Builder
	ans, err := a.Answer(context.Background(), c, mode, q, func(s string) error { streamed.WriteString(s); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return ans, streamed.String()
}

func TestExtractiveAnswer(t *testing.T) {
	tests := []struct {
		give     string
		wantSeq  int
		wantLow  bool
		wantLang string
	}{
		{give: "What was decided about the battery budget?", wantSeq: 2, wantLow: true, wantLang: "local provider"},
		// "배터리" is "battery": the English turn 2 on the battery and the
		// budget, of low confidence, is quoted beside the Korean decision.
		{give: "배터리 예산은 어떻게 결정했나요?", wantSeq: 3, wantLow: true, wantLang: "local 제공자"},
		{give: "디자인 시안은 누가 준비하나요?", wantSeq: 4, wantLang: "local 제공자"},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			c := build(t, askmode.Answer, tt.give)
			ans, streamed := collect(t, answer.Extractive{}, c, askmode.Answer, tt.give)
			if streamed != ans.Text+"\n" {
				t.Fatalf("streamed text differs from the answer:\n%q\n%q", streamed, ans.Text)
			}
			if ans.Provider != "local" || !strings.Contains(ans.Text, tt.wantLang) {
				t.Fatalf("answer does not say it is the local provider's: %q", ans.Text)
			}
			var found bool
			for _, cit := range ans.Citations {
				if c.Turns[cit.N-1].Seq != cit.Seq || !strings.Contains(ans.Text, fmt.Sprintf("[%d]", cit.N)) {
					t.Fatalf("citation %+v does not match the context or the text", cit)
				}
				found = found || cit.Seq == tt.wantSeq
			}
			if !found {
				t.Fatalf("want turn %d cited, got %+v", tt.wantSeq, ans.Citations)
			}
			if got := len(ans.Warnings) > 0; got != tt.wantLow {
				t.Fatalf("low-confidence warning = %v, want %v (%v)", got, tt.wantLow, ans.Warnings)
			}
		})
	}
}

func TestExtractiveNoMatch(t *testing.T) {
	c := build(t, askmode.Answer, "quarterly revenue forecast?")
	ans, _ := collect(t, answer.Extractive{}, c, askmode.Answer, "quarterly revenue forecast?")
	if len(ans.Citations) != 0 || !strings.Contains(ans.Text, "could not find") {
		t.Fatalf("want an honest miss, got %q %+v", ans.Text, ans.Citations)
	}
}

func TestIsFollowUp(t *testing.T) {
	tests := []struct {
		give string
		want bool
	}{
		{"and who owns that?", true},
		{"그건 누가 맡아?", true},
		{"그럼 언제까지야?", true},
		{"When is it due?", true},
		{"who?", true},
		{"What did the team decide about the battery supplier?", false},
		{"배터리 공급업체에 대해 무엇을 결정했나요?", false},
	}
	for _, tt := range tests {
		if got := answer.IsFollowUp(tt.give); got != tt.want {
			t.Errorf("IsFollowUp(%q) = %v, want %v", tt.give, got, tt.want)
		}
	}
}

func TestRulePlannerResolvesFollowUp(t *testing.T) {
	prev := &answer.Exchange{Question: "what about the battery?", Query: "what about the battery?"}
	p, err := answer.RulePlanner{}.Plan(context.Background(), answer.PlanInput{Mode: askmode.Answer, Question: "and who owns that?", Previous: prev, Topics: 3, Turns: 40})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.NextSubquery, "battery") || !p.NeedSearch || !p.CanAnswer {
		t.Fatalf("plan = %+v", p)
	}
	p, _ = answer.RulePlanner{}.Plan(context.Background(), answer.PlanInput{Mode: askmode.Answer, Question: "what's up?"})
	if p.CanAnswer || len(p.MissingRequirements) == 0 {
		t.Fatalf("empty meeting: plan = %+v", p)
	}
}

func TestCitationsIn(t *testing.T) {
	c := build(t, askmode.Answer, "q")
	got := answer.CitationsIn("Kim said so [2], and Lee agreed [2, 5]; see also [99] and [0].", c)
	var ns []int
	for _, cit := range got {
		ns = append(ns, cit.N)
	}
	if fmt.Sprint(ns) != "[2 5]" {
		t.Fatalf("citations %v, want [2 5]", ns)
	}
	if got[0].Seq != c.Turns[1].Seq || got[0].Time != answer.Clock(c.Turns[1].StartMS) {
		t.Fatalf("citation %+v does not match turn %+v", got[0], c.Turns[1])
	}
}

// chatServer is an OpenAI-compatible server answering every chat with
// reply, streamed word by word when asked to stream.
func chatServer(t *testing.T, reply string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream bool `json:"stream"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if !req.Stream {
			b, _ := json.Marshal(reply)
			fmt.Fprintf(w, `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5}}`, b)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, piece := range strings.SplitAfter(reply, " ") {
			b, _ := json.Marshal(piece)
			fmt.Fprintf(w, "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", b)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestChatAnswerStreamsAndCites(t *testing.T) {
	srv := chatServer(t, "Kim decided on regular batteries [4], because of the budget [3].")
	cl, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := build(t, askmode.Answer, "what about batteries?")
	ans, streamed := collect(t, answer.Chat{Chat: cl}, c, askmode.Answer, "what about batteries?")
	if streamed != ans.Text || ans.Provider != "openai" {
		t.Fatalf("streamed %q, answer %q (%s)", streamed, ans.Text, ans.Provider)
	}
	if len(ans.Citations) != 2 || ans.Citations[0].Seq != 3 || ans.Citations[1].Seq != 2 {
		t.Fatalf("citations %+v", ans.Citations)
	}
	if len(ans.Warnings) != 1 {
		t.Fatalf("turn 2 has low confidence; warnings %v", ans.Warnings)
	}
}

func TestChatPlanner(t *testing.T) {
	in := answer.PlanInput{Mode: askmode.Answer, Question: "and who owns that?", Topics: 2, Turns: 10,
		Previous: &answer.Exchange{Question: "what about the battery?", Query: "what about the battery?"}}
	tests := []struct {
		name  string
		reply string
		want  string
	}{
		{"model plan", "```json\n{\"plan\":\"search\",\"need_search\":\"true\",\"can_answer\":true,\"next_subquery\":\"battery owner\"}\n```", "battery owner"},
		{"garbage falls back to rules", "I cannot help with that.", "what about the battery? and who owns that?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, err := openai.New(openai.Config{BaseURL: chatServer(t, tt.reply).URL, Model: "m", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			p, err := answer.ChatPlanner{Chat: cl}.Plan(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if p.NextSubquery != tt.want || !p.NeedSearch || p.MissingRequirements == nil {
				t.Fatalf("plan %+v, want subquery %q", p, tt.want)
			}
		})
	}
}

// Scoring indexed turns gives the same scores as scoring their text.
func TestScoreIndexedMatchesScore(t *testing.T) {
	turns := meetingTurns()
	for _, q := range []string{"battery budget decision", "디자인 시안 준비", "nothing matches here", ""} {
		want := answer.Score(turns, q)
		got := answer.ScoreIndexed(answer.Index(turns), q)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("query %q: indexed %v, text %v", q, got, want)
		}
	}
	x := answer.NewTurnIndex(turns)
	for _, q := range []string{"battery budget decision", "디자인 시안 준비", "nothing matches here", ""} {
		want := answer.Score(turns, q)
		if got := x.Score(q); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("query %q: inverted index %v, text %v", q, got, want)
		}
		order := x.Ranked(q)
		if len(order) != len(turns) {
			t.Fatalf("query %q: ranked %d of %d turns", q, len(order), len(turns))
		}
		for i := 1; i < len(order); i++ {
			a, b := want[order[i-1]], want[order[i]]
			if a < b || (a == b && order[i-1] > order[i]) {
				t.Fatalf("query %q: order %v breaks score order or meeting order of ties (scores %v)", q, order, want)
			}
		}
	}
	if s := answer.Score(turns, "battery budget"); s[2] <= 0 || s[0] != 0 {
		t.Fatalf("scores %v: turn 2 mentions both terms, turn 0 neither", s)
	}
}
