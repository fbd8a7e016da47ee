package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/tokens"
)

type fixedChat struct{ prompt int }

func (f fixedChat) Chat(context.Context, llm.ChatRequest) (llm.ChatResponse, error) {
	return llm.ChatResponse{Content: "ok", Usage: llm.Usage{PromptTokens: f.prompt}}, nil
}

func (f fixedChat) ChatStream(ctx context.Context, req llm.ChatRequest, onDelta func(string) error) (llm.ChatResponse, error) {
	if err := onDelta("ok"); err != nil {
		return llm.ChatResponse{}, err
	}
	return f.Chat(ctx, req)
}

// A provider whose tokenizer counts 1.5x the local one moves the model's
// correction factor up.
func TestMeteredLearnsCorrection(t *testing.T) {
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	req := llm.ChatRequest{Model: "hcx-005", Messages: []llm.Message{{Role: "user", Content: strings.Repeat("회의 내용을 요약해 주세요. ", 40)}}}
	est := 3 + 4 + counter.Count(req.Messages[0].Content)
	corr := &tokens.Corrector{}
	m := llm.Metered{Chatter: fixedChat{prompt: est * 3 / 2}, Count: counter.Count, Observer: corr}
	for range 20 {
		if _, err := m.Chat(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if _, err := m.ChatStream(context.Background(), req, func(string) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if f := corr.Factor("hcx-005"); f < 1.4 || f > 1.6 {
		t.Fatalf("factor %.2f, want about 1.5", f)
	}
	if f := corr.Factor("gpt-4o"); f != 1 {
		t.Fatalf("unseen model factor %.2f, want 1", f)
	}
}
