// Package config reads pr-worker's settings from the environment.
package config

import (
	"errors"
	"log/slog"
	"net"
	"net/url"
	"time"

	"github.com/hibiken/asynq"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/envconf"
	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/webhook"
	"github.com/mithub/mithub/services/pr-worker/internal/jobs"
)

// Config is pr-worker's configuration. Each field names its variable and
// default.
type Config struct {
	// DatabaseURL is MITHUB_DATABASE_URL
	// (default postgres://postgres@127.0.0.1:5432/mithub?sslmode=disable).
	DatabaseURL string
	// AutoMigrate is MITHUB_AUTO_MIGRATE (default true): apply migrations
	// on start.
	AutoMigrate bool
	// RedisURL is MITHUB_REDIS_URL (default redis://127.0.0.1:6379/0), in
	// the forms asynq.ParseRedisURI accepts.
	RedisURL string
	// Concurrency is MITHUB_WORKER_CONCURRENCY, tasks processed at once
	// (default 10).
	Concurrency int
	// PRTurnsInFlight is MITHUB_PR_TURNS_IN_FLIGHT (default 400000): the
	// transcript turns of the PR jobs built at once; a job takes one unit
	// per turn of its meeting (at most all of them) and waits for them.
	PRTurnsInFlight int
	// Queues maps queue names to their priority: pr 6, memory 3, webhook
	// 3, default 1.
	// It is fixed, not read from the environment.
	Queues map[string]int
	// HTTPAddr is MITHUB_WORKER_HTTP_ADDR, where /healthz and /readyz are
	// served (default 127.0.0.1:8091).
	HTTPAddr string
	// LogLevel is MITHUB_LOG_LEVEL: debug, info, warn or error (default info).
	LogLevel slog.Level
	// ShutdownTimeout is MITHUB_SHUTDOWN_TIMEOUT (default 30s): how long
	// in-flight tasks may run after a stop signal before they are pushed
	// back to their queue.
	ShutdownTimeout time.Duration
	// LLM is the PR extractor's chat provider: MITHUB_LLM_PROVIDER
	// (local|openai, default local), MITHUB_LLM_BASE_URL, MITHUB_LLM_API_KEY,
	// MITHUB_LLM_MODEL (required for openai; it also picks the BPE table),
	// MITHUB_LLM_CONTEXT_WINDOW (default 0: from the model table), MITHUB_LLM_TIMEOUT
	// (default 60s).
	LLM LLMConfig
	// MemoryBankMaxBytes is MITHUB_MEMORY_BANK_MAX_BYTES (default 16384):
	// the bytes of meeting sections one memory-bank category keeps after
	// a meeting's update; the oldest meetings' sections go first (0: no
	// bound).
	MemoryBankMaxBytes int
	// Memory holds the long-conversation memory settings, MITHUB_MEMORY_*
	// (see convmemory.LoadConfig: chunk 500 tokens, fan-in 5, 20 in flight).
	Memory convmemory.Config
	// Webhook holds the delivery settings, MITHUB_WEBHOOK_* (see
	// webhook.LoadConfig: 10s per attempt, disabled after 20 failures in
	// a row, private targets refused).
	Webhook webhook.Config
}

// Providers.
const (
	ProviderLocal  = "local"
	ProviderOpenAI = "openai"
)

// LLMConfig selects and configures the chat provider.
type LLMConfig struct {
	Provider      string
	BaseURL       string
	APIKey        string
	Model         string
	ContextWindow int
	Timeout       time.Duration
}

// Load reads the configuration from the environment and validates it.
func Load() (Config, error) { return load(envconf.New()) }

// FromMap reads the configuration from m; tests use it.
func FromMap(m map[string]string) (Config, error) { return load(envconf.FromMap(m)) }

func load(r *envconf.Reader) (Config, error) {
	c := Config{
		DatabaseURL:     r.String("MITHUB_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mithub?sslmode=disable"),
		AutoMigrate:     r.Bool("MITHUB_AUTO_MIGRATE", true),
		RedisURL:        r.String("MITHUB_REDIS_URL", "redis://127.0.0.1:6379/0"),
		Concurrency:     r.Int("MITHUB_WORKER_CONCURRENCY", 10, 1, 10_000),
		PRTurnsInFlight: r.Int("MITHUB_PR_TURNS_IN_FLIGHT", jobs.DefaultTurnsInFlight, 1, 1<<30),
		Queues: map[string]int{
			jobs.QueuePR:      6,
			jobs.QueueMemory:  3,
			jobs.QueueWebhook: 3,
			jobs.QueueDefault: 1,
		},
		HTTPAddr:           r.String("MITHUB_WORKER_HTTP_ADDR", "127.0.0.1:8091"),
		MemoryBankMaxBytes: r.Int("MITHUB_MEMORY_BANK_MAX_BYTES", prdoc.DefaultMaxBytes, 0, 64<<20),
		ShutdownTimeout:    r.Duration("MITHUB_SHUTDOWN_TIMEOUT", 30*time.Second),
		LLM: LLMConfig{
			Provider:      r.OneOf("MITHUB_LLM_PROVIDER", ProviderLocal, ProviderLocal, ProviderOpenAI),
			BaseURL:       r.String("MITHUB_LLM_BASE_URL", ""),
			APIKey:        r.String("MITHUB_LLM_API_KEY", ""),
			Model:         r.String("MITHUB_LLM_MODEL", ""),
			ContextWindow: r.Int("MITHUB_LLM_CONTEXT_WINDOW", 0, 0, 100_000_000),
			Timeout:       r.Duration("MITHUB_LLM_TIMEOUT", 60*time.Second),
		},
	}
	c.Memory = convmemory.LoadConfig(r)
	c.Webhook = webhook.LoadConfig(r)
	if c.LLM.Provider == ProviderOpenAI {
		if c.LLM.BaseURL == "" {
			r.Fail("MITHUB_LLM_BASE_URL", "required when MITHUB_LLM_PROVIDER=openai")
		}
		if c.LLM.Model == "" {
			r.Fail("MITHUB_LLM_MODEL", "required when MITHUB_LLM_PROVIDER=openai")
		}
	}
	if _, err := asynq.ParseRedisURI(c.RedisURL); err != nil {
		r.Fail("MITHUB_REDIS_URL", "%s", urlProblem(err))
	}
	if _, _, err := net.SplitHostPort(c.HTTPAddr); err != nil {
		r.Fail("MITHUB_WORKER_HTTP_ADDR", "%q is not host:port", c.HTTPAddr)
	}
	lvl, err := logging.ParseLevel(r.String("MITHUB_LOG_LEVEL", "info"))
	if err != nil {
		r.Fail("MITHUB_LOG_LEVEL", "%v", err)
	}
	c.LogLevel = lvl
	return c, r.Err()
}

// urlProblem describes a URL parse error without quoting the URL,
// which may carry a password.
func urlProblem(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
