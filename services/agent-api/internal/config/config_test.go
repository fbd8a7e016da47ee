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
		c.Context.L0MaxTurns != 25 || c.Context.L0MaxTokens != 3000 {
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
	}
	for _, tt := range tests {
		_, err := config.FromMap(tt.give)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("FromMap(%v) error %v, want it to name %s", tt.give, err, tt.want)
		}
	}
}
