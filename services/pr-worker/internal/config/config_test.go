package config_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/tokens"
	"github.com/mithub/mithub/pkg/webhook"
	"github.com/mithub/mithub/services/pr-worker/internal/config"
)

func TestDefaults(t *testing.T) {
	c, err := config.FromMap(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := config.Config{
		Queues:             map[string]int{"pr": 6, "memory": 3, "webhook": 3, "default": 1},
		DatabaseURL:        "postgres://postgres@127.0.0.1:5432/mithub?sslmode=disable",
		AutoMigrate:        true,
		RedisURL:           "redis://127.0.0.1:6379/0",
		Concurrency:        10,
		PRTurnsInFlight:    400_000,
		HTTPAddr:           "127.0.0.1:8091",
		ShutdownTimeout:    30 * time.Second,
		LLM:                config.LLMConfig{Provider: "local", Timeout: 60 * time.Second},
		MemoryBankMaxBytes: 16384,
		Memory: convmemory.Config{ChunkTokens: 500, FanIn: 5, MaxInFlight: 20, ContextWindow: tokens.DefaultContextWindow,
			CompressAt: 0.70, CompressTo: 0.10, SummaryTokens: 200, MergeTokens: 300},
		Webhook: webhook.Config{Timeout: 10 * time.Second, DisableAfter: 20, SecretGrace: 24 * time.Hour},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", c, want)
	}
}

func TestValuesFromEnv(t *testing.T) {
	c, err := config.FromMap(map[string]string{
		"MITHUB_WORKER_CONCURRENCY":    "3",
		"MITHUB_SHUTDOWN_TIMEOUT":      "5s",
		"MITHUB_AUTO_MIGRATE":          "false",
		"MITHUB_REDIS_URL":             "redis://:pw@10.0.0.1:6380/2",
		"MITHUB_WORKER_HTTP_ADDR":      ":9000",
		"MITHUB_LOG_LEVEL":             "debug",
		"MITHUB_MEMORY_BANK_MAX_BYTES": "0",
		"MITHUB_PR_TURNS_IN_FLIGHT":    "50000",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Concurrency != 3 || c.ShutdownTimeout != 5*time.Second || c.AutoMigrate ||
		c.RedisURL != "redis://:pw@10.0.0.1:6380/2" || c.HTTPAddr != ":9000" || c.LogLevel.String() != "DEBUG" ||
		c.MemoryBankMaxBytes != 0 || c.PRTurnsInFlight != 50000 {
		t.Errorf("config = %+v", c)
	}
}

func TestBadValuesNameTheVariable(t *testing.T) {
	tests := []struct {
		give map[string]string
		want string
	}{
		{map[string]string{"MITHUB_WORKER_CONCURRENCY": "ten"}, "MITHUB_WORKER_CONCURRENCY"},
		{map[string]string{"MITHUB_WORKER_CONCURRENCY": "0"}, "MITHUB_WORKER_CONCURRENCY"},
		{map[string]string{"MITHUB_SHUTDOWN_TIMEOUT": "soon"}, "MITHUB_SHUTDOWN_TIMEOUT"},
		{map[string]string{"MITHUB_SHUTDOWN_TIMEOUT": "-1s"}, "MITHUB_SHUTDOWN_TIMEOUT"},
		{map[string]string{"MITHUB_AUTO_MIGRATE": "maybe"}, "MITHUB_AUTO_MIGRATE"},
		{map[string]string{"MITHUB_REDIS_URL": "http://127.0.0.1:6379"}, "MITHUB_REDIS_URL"},
		{map[string]string{"MITHUB_REDIS_URL": "redis://127.0.0.1:6379/zero"}, "MITHUB_REDIS_URL"},
		{map[string]string{"MITHUB_WORKER_HTTP_ADDR": "8091"}, "MITHUB_WORKER_HTTP_ADDR"},
		{map[string]string{"MITHUB_LOG_LEVEL": "loud"}, "MITHUB_LOG_LEVEL"},
		{map[string]string{"MITHUB_MEMORY_BANK_MAX_BYTES": "16KiB"}, "MITHUB_MEMORY_BANK_MAX_BYTES"},
		{map[string]string{"MITHUB_PR_TURNS_IN_FLIGHT": "0"}, "MITHUB_PR_TURNS_IN_FLIGHT"},
		{map[string]string{"MITHUB_LLM_PROVIDER": "gpt"}, "MITHUB_LLM_PROVIDER"},
		{map[string]string{"MITHUB_LLM_PROVIDER": "openai", "MITHUB_LLM_MODEL": "m"}, "MITHUB_LLM_BASE_URL"},
		{map[string]string{"MITHUB_LLM_PROVIDER": "openai", "MITHUB_LLM_BASE_URL": "http://x/v1"}, "MITHUB_LLM_MODEL"},
		{map[string]string{"MITHUB_LLM_CONTEXT_WINDOW": "-5"}, "MITHUB_LLM_CONTEXT_WINDOW"},
	}
	for _, tt := range tests {
		_, err := config.FromMap(tt.give)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("FromMap(%v) error %v, want it to name %s", tt.give, err, tt.want)
		}
	}
}

func TestEveryBadVariableIsNamed(t *testing.T) {
	_, err := config.FromMap(map[string]string{
		"MITHUB_WORKER_CONCURRENCY": "x",
		"MITHUB_SHUTDOWN_TIMEOUT":   "x",
		"MITHUB_LOG_LEVEL":          "x",
	})
	for _, name := range []string{"MITHUB_WORKER_CONCURRENCY", "MITHUB_SHUTDOWN_TIMEOUT", "MITHUB_LOG_LEVEL"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
}

func TestRedisURLErrorHidesPassword(t *testing.T) {
	_, err := config.FromMap(map[string]string{"MITHUB_REDIS_URL": "redis://:hunter2@127.0.0.1:port/0"})
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error %q reveals the password", err)
	}
}
