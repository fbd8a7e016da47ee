package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/services/agent-api/internal/config"
)

func TestDefaults(t *testing.T) {
	c, err := config.FromMap(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Env != config.EnvProd || c.HTTPAddr != ":8080" || c.CacheSize != 1000 || c.CacheTTL != time.Hour ||
		c.Context.L0MaxTurns != 25 || c.Context.L0MaxTokens != 3000 || c.Context.ChunkTurns != 25 ||
		c.Context.MaxTopics != 30 || c.Context.L1Wait != 1500*time.Millisecond || c.LLM.Provider != config.ProviderLocal ||
		c.Embed.Provider != config.ProviderLocal || c.Embed.Dim != 256 || c.AskTopicCacheBytes != 128<<20 || c.MemoryBankMaxBytes != 16384 {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestBadValuesNameTheVariable(t *testing.T) {
	tests := []struct {
		give map[string]string
		want string
	}{
		{map[string]string{"MITHUB_ENV": "staging"}, "MITHUB_ENV"},
		{map[string]string{"MITHUB_CACHE_SIZE": "0"}, "MITHUB_CACHE_SIZE"},
		{map[string]string{"MITHUB_CACHE_TTL": "forever"}, "MITHUB_CACHE_TTL"},
		{map[string]string{"MITHUB_LOG_LEVEL": "loud"}, "MITHUB_LOG_LEVEL"},
		{map[string]string{"MITHUB_CTX_L0_MAX_TURNS": "x"}, "MITHUB_CTX_L0_MAX_TURNS"},
		{map[string]string{"MITHUB_LLM_PROVIDER": "openai", "MITHUB_LLM_MODEL": "gpt-4o"}, "MITHUB_LLM_BASE_URL"},
		{map[string]string{"MITHUB_LLM_PROVIDER": "openai", "MITHUB_LLM_BASE_URL": "http://x"}, "MITHUB_LLM_MODEL"},
		{map[string]string{"MITHUB_EMBED_PROVIDER": "openai", "MITHUB_LLM_BASE_URL": "http://x"}, "MITHUB_EMBED_MODEL"},
		{map[string]string{"MITHUB_LLM_PROVIDER": "claude"}, "MITHUB_LLM_PROVIDER"},
		{map[string]string{"MITHUB_CTX_MERGE_THRESHOLD": "1.5"}, "MITHUB_CTX_MERGE_THRESHOLD"},
		{map[string]string{"MITHUB_CTX_L1_WAIT": "-1s"}, "MITHUB_CTX_L1_WAIT"},
		{map[string]string{"MITHUB_ASK_TOPIC_CACHE_BYTES": "-1"}, "MITHUB_ASK_TOPIC_CACHE_BYTES"},
		{map[string]string{"MITHUB_MEMORY_BANK_MAX_BYTES": "-1"}, "MITHUB_MEMORY_BANK_MAX_BYTES"},
		{map[string]string{"MITHUB_ASK_TOPIC_CACHE_BYTES": "8MiB"}, "MITHUB_ASK_TOPIC_CACHE_BYTES"},
	}
	for _, tt := range tests {
		_, err := config.FromMap(tt.give)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("FromMap(%v) error %v, want it to name %s", tt.give, err, tt.want)
		}
	}
}

// MITHUB_CTX_L1_WAIT sets the bound on waits for topics exactly.
func TestL1WaitFromEnv(t *testing.T) {
	tests := []struct {
		give string
		want time.Duration
	}{
		{"250ms", 250 * time.Millisecond},
		{"3s", 3 * time.Second},
	}
	for _, tt := range tests {
		c, err := config.FromMap(map[string]string{"MITHUB_CTX_L1_WAIT": tt.give})
		if err != nil {
			t.Fatalf("MITHUB_CTX_L1_WAIT=%s: %v", tt.give, err)
		}
		if got := c.Context.WithDefaults().L1Wait; got != tt.want {
			t.Errorf("MITHUB_CTX_L1_WAIT=%s: L1 wait %s, want %s", tt.give, got, tt.want)
		}
	}
}
