package config_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mithub/mithub/services/agent-api/internal/config"
)

func TestRateLimitAndCORSSettings(t *testing.T) {
	c, err := config.FromMap(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.RateLimitRPS != 20 || c.RateLimitBurst != 40 || len(c.CORSOrigins) != 0 {
		t.Fatalf("prod defaults: rps %v burst %d origins %q", c.RateLimitRPS, c.RateLimitBurst, c.CORSOrigins)
	}
	if c.AuthFailureRPS != 1 || c.AuthFailureBurst != 30 || c.HTTPMaxConns != 0 || c.HTTPMaxConnsPerAddr != -1 {
		t.Fatalf("prod defaults: auth failures %v/%d, conns %d/%d", c.AuthFailureRPS, c.AuthFailureBurst, c.HTTPMaxConns, c.HTTPMaxConnsPerAddr)
	}
	dev, err := config.FromMap(map[string]string{"MITHUB_ENV": "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if dev.RateLimitRPS != 0 {
		t.Fatalf("dev default rps %v, want 0 (no limit)", dev.RateLimitRPS)
	}
	dev, err = config.FromMap(map[string]string{"MITHUB_ENV": "dev", "MITHUB_RATE_LIMIT_RPS": "5",
		"MITHUB_HTTP_MAX_CONNS": "100", "MITHUB_HTTP_MAX_CONNS_PER_ADDR": "0", "MITHUB_AUTH_FAILURE_BURST": "0"})
	if err != nil {
		t.Fatal(err)
	}
	if dev.RateLimitRPS != 5 || dev.HTTPMaxConns != 100 || dev.HTTPMaxConnsPerAddr != 0 || dev.AuthFailureBurst != 0 {
		t.Fatalf("dev with settings: %+v", dev)
	}
	c, err = config.FromMap(map[string]string{
		"MITHUB_RATE_LIMIT_RPS":   "2.5",
		"MITHUB_RATE_LIMIT_BURST": "10",
		"MITHUB_CORS_ORIGINS":     "https://app.example.com, http://localhost:5173 ,https://*.mithub.dev,",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://app.example.com", "http://localhost:5173", "https://*.mithub.dev"}
	if c.RateLimitRPS != 2.5 || c.RateLimitBurst != 10 || !slices.Equal(c.CORSOrigins, want) {
		t.Fatalf("rps %v burst %d origins %q", c.RateLimitRPS, c.RateLimitBurst, c.CORSOrigins)
	}
}

func TestBadSecuritySettingsNameTheVariable(t *testing.T) {
	tests := []struct {
		give map[string]string
		want string
	}{
		{map[string]string{"MITHUB_RATE_LIMIT_RPS": "-1"}, "MITHUB_RATE_LIMIT_RPS"},
		{map[string]string{"MITHUB_RATE_LIMIT_RPS": "fast"}, "MITHUB_RATE_LIMIT_RPS"},
		{map[string]string{"MITHUB_RATE_LIMIT_BURST": "1.5"}, "MITHUB_RATE_LIMIT_BURST"},
		{map[string]string{"MITHUB_CORS_ORIGINS": "app.example.com"}, "MITHUB_CORS_ORIGINS"},
		{map[string]string{"MITHUB_CORS_ORIGINS": "https://app.example.com/path"}, "MITHUB_CORS_ORIGINS"},
		{map[string]string{"MITHUB_CORS_ORIGINS": "ftp://files.example.com"}, "MITHUB_CORS_ORIGINS"},
		{map[string]string{"MITHUB_CORS_ORIGINS": "https://*"}, "MITHUB_CORS_ORIGINS"},
		{map[string]string{"MITHUB_CORS_ORIGINS": "https://user:pw@example.com"}, "MITHUB_CORS_ORIGINS"},
		{map[string]string{"MITHUB_CORS_ORIGINS": "https://example.com?x=1"}, "MITHUB_CORS_ORIGINS"},
	}
	for _, tt := range tests {
		_, err := config.FromMap(tt.give)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("FromMap(%v) error %v, want it to name %s", tt.give, err, tt.want)
		}
	}
}
