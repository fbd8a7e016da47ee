package app

import (
	"fmt"
	"net/http"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/llm/openai"
	"github.com/mithub/mithub/pkg/llm/prompted"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/tokens"
	"github.com/mithub/mithub/services/agent-api/internal/config"
)

// providers are the engine's segmenter, summarizer and embedder.
type providers struct {
	segmenter  meetingctx.Segmenter
	summarizer meetingctx.Summarizer
	embedder   meetingctx.Embedder
	planner    answer.Planner
	answerer   answer.Answerer
}

// newProviders builds the configured chat and embedding providers: the
// offline local algorithms, or an OpenAI-compatible server.
//
// Chat usage reported by the server feeds corr, so token budgets learn the
// provider's tokenizer.
func newProviders(cfg config.Config, hc *http.Client, counter tokens.Counter, corr *tokens.Corrector) (providers, error) {
	var p providers
	switch cfg.LLM.Provider {
	case config.ProviderOpenAI:
		c, err := openai.New(openai.Config{
			BaseURL: cfg.LLM.BaseURL, APIKey: cfg.LLM.APIKey, Model: cfg.LLM.Model,
			Timeout: cfg.LLM.Timeout, HTTPClient: hc,
		})
		if err != nil {
			return p, fmt.Errorf("LLM provider: %w", err)
		}
		chat := llm.Metered{Chatter: c, Count: counter.Count, Observer: corr}
		p.segmenter = prompted.NewSegmenter(chat, prompted.Config{Model: cfg.LLM.Model})
		p.summarizer = prompted.NewSummarizer(chat, prompted.Config{Model: cfg.LLM.Model})
		p.planner = answer.ChatPlanner{Chat: chat, Model: cfg.LLM.Model}
		p.answerer = answer.Chat{Chat: chat, Model: cfg.LLM.Model, MaxTokens: cfg.LLM.MaxOutputTokens}
	default:
		p.segmenter = segment.NewSegmenter(segment.SegmenterConfig{})
		p.summarizer = segment.NewSummarizer()
		p.planner = answer.RulePlanner{}
		p.answerer = answer.Extractive{MinWords: cfg.AnswerMinWords, MaxWords: cfg.AnswerMaxWords}
	}
	switch cfg.Embed.Provider {
	case config.ProviderOpenAI:
		c, err := openai.New(openai.Config{
			BaseURL: cfg.Embed.BaseURL, APIKey: cfg.Embed.APIKey, EmbedModel: cfg.Embed.Model,
			Dimension: cfg.Embed.Dim, Timeout: cfg.LLM.Timeout, HTTPClient: hc,
		})
		if err != nil {
			return p, fmt.Errorf("embedding provider: %w", err)
		}
		p.embedder = c
	default:
		p.embedder = segment.NewEmbedder(cfg.Embed.Dim)
	}
	return p, nil
}
