package answer_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/askmode"
	"github.com/mithub/mithub/pkg/internal/golden"
	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/llm/openai"
)

// replyOf reads a recorded model reply.
func replyOf(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func goldenPath(path string) string { return strings.TrimSuffix(path, ".txt") + ".golden.json" }

// Each recorded answer (the marker styles models write, Korean, Markdown,
// numbers that are not turns) streams unchanged and yields the citations
// and warnings in its golden file.
func TestChatAnswerRepliesGolden(t *testing.T) {
	for _, path := range golden.Files(t, "testdata/replies/answer", ".txt") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			reply := replyOf(t, path)
			cl, err := openai.New(openai.Config{BaseURL: chatServer(t, reply).URL, Model: "m", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			c := build(t, askmode.Answer, "what did they decide about the battery?")
			ans, streamed := collect(t, answer.Chat{Chat: cl}, c, askmode.Answer, "what did they decide about the battery?")
			if streamed != reply || ans.Text != reply {
				t.Fatalf("streamed %q, text %q; want the reply unchanged", streamed, ans.Text)
			}
			type cite struct {
				N       int    `json:"n"`
				Seq     int    `json:"seq"`
				Speaker string `json:"speaker"`
				LowConf bool   `json:"low_confidence"`
			}
			got := struct {
				Citations []cite   `json:"citations"`
				Warnings  []string `json:"warnings"`
			}{Citations: []cite{}, Warnings: ans.Warnings}
			for _, ci := range ans.Citations {
				got.Citations = append(got.Citations, cite{ci.N, ci.Seq, ci.SpeakerName, ci.LowConf})
			}
			golden.CheckJSON(t, goldenPath(path), got)
		})
	}
}

// Each recorded planner reply (valid, fenced, in prose, truncated, wrong
// types, Korean, a refusal) becomes the plan in its golden file: the
// model's plan when its JSON can be read, the rules' plan otherwise.
func TestChatPlannerRepliesGolden(t *testing.T) {
	in := answer.PlanInput{Mode: askmode.Answer, Question: "and who owns that?", Topics: 2, Turns: 10,
		Previous: &answer.Exchange{Question: "what about the battery?", Query: "what about the battery?"}}
	for _, path := range golden.Files(t, "testdata/replies/plan", ".txt") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cl, err := openai.New(openai.Config{BaseURL: chatServer(t, replyOf(t, path)).URL, Model: "m", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			p, err := answer.ChatPlanner{Chat: cl}.Plan(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			golden.CheckJSON(t, goldenPath(path), p)
		})
	}
}

// recorder is a Chatter that records its requests and answers "{}".
type recorder struct{ reqs []llm.ChatRequest }

func (r *recorder) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	r.reqs = append(r.reqs, req)
	return llm.ChatResponse{Content: "{}", FinishReason: "stop"}, nil
}

func (r *recorder) ChatStream(ctx context.Context, req llm.ChatRequest, onDelta func(string) error) (llm.ChatResponse, error) {
	resp, err := r.Chat(ctx, req)
	if err == nil {
		err = onDelta(resp.Content)
	}
	return resp, err
}

// The prompts sent to a chat model are pinned: a change to them shows up
// as a diff of testdata/prompts to review.
func TestPromptsGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		mode askmode.Mode
		q    string
	}{
		{"answer", askmode.Answer, "what did they decide about the battery?"},
		{"answer_korean", askmode.Answer, "배터리는 어떻게 하기로 했어?"},
		{"catch_up", askmode.CatchUp, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r recorder
			c := build(t, tt.mode, tt.q)
			if _, err := (answer.Chat{Chat: &r, Model: "m"}).Answer(context.Background(), c, tt.mode, tt.q, func(string) error { return nil }); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "testdata/prompts/"+tt.name+".txt", golden.Prompt(r.reqs[0]))
		})
	}
	t.Run("plan", func(t *testing.T) {
		var r recorder
		in := answer.PlanInput{Mode: askmode.Answer, Question: "and who owns that?", Topics: 2, Turns: 10,
			Previous: &answer.Exchange{Question: "what about the battery?", Answer: "Regular batteries [4].", Query: "what about the battery?"}}
		if _, err := (answer.ChatPlanner{Chat: &r, Model: "m"}).Plan(context.Background(), in); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "testdata/prompts/plan.txt", golden.Prompt(r.reqs[0]))
	})
}
