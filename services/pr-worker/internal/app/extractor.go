package app

import (
	"fmt"

	"github.com/mithub/mithub/pkg/llm/openai"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/tokens"
	"github.com/mithub/mithub/services/pr-worker/internal/config"
)

// newExtractor builds the PR extractor: the cue rules of the local
// provider, or map-reduce through an OpenAI-compatible server.
func newExtractor(cfg config.LLMConfig) (prdoc.Extractor, error) {
	if cfg.Provider != config.ProviderOpenAI {
		return prdoc.NewLocal(), nil
	}
	counter, err := tokens.ForModel(cfg.Model)
	if err != nil {
		return nil, err
	}
	c, err := openai.New(openai.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Timeout: cfg.Timeout})
	if err != nil {
		return nil, fmt.Errorf("LLM provider: %w", err)
	}
	window := tokens.ContextWindow(cfg.Model, cfg.ContextWindow)
	return prdoc.NewLLM(c, counter, prdoc.LLMConfig{Model: cfg.Model, Window: window}), nil
}
