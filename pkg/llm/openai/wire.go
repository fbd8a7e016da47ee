package openai

import (
	"encoding/json"
	"fmt"

	"github.com/mithub/mithub/pkg/llm"
)

// The wire format of the OpenAI API, as far as the client uses it.

type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []wireMessage   `json:"messages"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	Temperature    float64         `json:"temperature"`
	Stream         bool            `json:"stream,omitempty"`
	StreamOptions  *streamOptions  `json:"stream_options,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type responseFormat struct {
	Type string `json:"type"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

func (u *wireUsage) usage() llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	return llm.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
}

type streamChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type embedResponse struct {
	Data []struct {
		Index     *int            `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	Model string     `json:"model"`
	Usage *wireUsage `json:"usage"`
}

// decodeBody decodes a whole response body.
func decodeBody(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: decode response: %w", llm.ErrBadResponse, err)
	}
	return nil
}

// response turns the first choice of a chat response into an
// llm.ChatResponse.
func (r *chatResponse) response() (llm.ChatResponse, error) {
	for _, ch := range r.Choices {
		if ch.Index != 0 {
			continue
		}
		out := llm.ChatResponse{Model: r.Model, Usage: r.Usage.usage()}
		if ch.Message.Content != nil {
			out.Content = *ch.Message.Content
		} else if ch.Message.Refusal != nil {
			out.Content = *ch.Message.Refusal
		}
		if ch.FinishReason != nil {
			out.FinishReason = *ch.FinishReason
		}
		return out, nil
	}
	return llm.ChatResponse{}, fmt.Errorf("%w: response has no choice", llm.ErrBadResponse)
}
