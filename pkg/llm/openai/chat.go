package openai

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mithub/mithub/pkg/llm"
)

// Chat sends one chat completion request (POST {BaseURL}/chat/completions)
// and returns the first choice. req.JSON asks for a JSON object through
// response_format.
func (c *Client) Chat(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	body, model, err := c.chatBody(req, false)
	if err != nil {
		return llm.ChatResponse{}, fmt.Errorf("openai chat: %w", err)
	}
	var out llm.ChatResponse
	err = c.retry(ctx, func(ctx context.Context) error {
		var wire chatResponse
		if err := c.postJSON(ctx, "/chat/completions", body, &wire); err != nil {
			return err
		}
		r, err := wire.response()
		if err != nil {
			return err
		}
		out = r
		return nil
	})
	if err != nil {
		return llm.ChatResponse{}, fmt.Errorf("openai chat %s: %w", model, err)
	}
	c.reportUsage(model, out.Usage)
	return out, nil
}

// chatBody encodes a request and returns it with the model it names.
func (c *Client) chatBody(req llm.ChatRequest, stream bool) ([]byte, string, error) {
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if model == "" {
		return nil, "", fmt.Errorf("%w: no model in the request or the config", llm.ErrPermanent)
	}
	if len(req.Messages) == 0 {
		return nil, "", fmt.Errorf("%w: no messages", llm.ErrPermanent)
	}
	w := chatRequest{
		Model:       model,
		Messages:    make([]wireMessage, len(req.Messages)),
		MaxTokens:   max(req.MaxTokens, 0),
		Temperature: req.Temperature,
	}
	for i, m := range req.Messages {
		w.Messages[i] = wireMessage{Role: m.Role, Content: m.Content}
	}
	if req.JSON {
		w.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	if stream {
		w.Stream = true
		w.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	body, err := json.Marshal(w)
	if err != nil {
		return nil, "", fmt.Errorf("%w: encode request: %w", llm.ErrPermanent, err)
	}
	return body, model, nil
}

func (c *Client) reportUsage(model string, u llm.Usage) {
	if c.cfg.OnUsage != nil && u.PromptTokens > 0 {
		c.cfg.OnUsage(model, u.PromptTokens)
	}
}
