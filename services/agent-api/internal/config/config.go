// Package config reads agent-api's settings from the environment.
package config

import (
	"log/slog"
	"time"

	"github.com/mithub/mithub/pkg/envconf"
	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/pkg/meetingctx"
)

// Environments.
const (
	EnvDev  = "dev"
	EnvProd = "prod"
)

// Config is agent-api's configuration. Each field names its variable and
// default.
type Config struct {
	// Env is MITHUB_ENV, dev or prod (default prod). Dev bootstraps tenant
	// "dev" with API key "dev-key".
	Env string
	// DatabaseURL is MITHUB_DATABASE_URL
	// (default postgres://postgres@127.0.0.1:5432/mithub?sslmode=disable).
	DatabaseURL string
	// DatabaseMaxConns is MITHUB_DATABASE_MAX_CONNS (default 16).
	DatabaseMaxConns int
	// AutoMigrate is MITHUB_AUTO_MIGRATE (default true): apply migrations
	// on start.
	AutoMigrate bool
	// RedisURL is MITHUB_REDIS_URL (default redis://127.0.0.1:6379/0).
	RedisURL string
	// HTTPAddr is MITHUB_HTTP_ADDR (default :8080).
	HTTPAddr string
	// BodyLimit is MITHUB_HTTP_BODY_LIMIT in bytes (default 4 MiB); larger
	// bodies get 413.
	BodyLimit int
	// CacheSize is MITHUB_CACHE_SIZE, meetings kept in memory (default 1000).
	CacheSize int
	// CacheTTL is MITHUB_CACHE_TTL, idle time before a meeting's context is
	// dropped from memory (default 1h).
	CacheTTL time.Duration
	// Context holds MITHUB_CTX_L0_MAX_TURNS (default 25) and
	// MITHUB_CTX_L0_MAX_TOKENS (default 3000).
	Context meetingctx.Config
	// LLMModel is MITHUB_LLM_MODEL (default empty: the local provider); it picks the BPE
	// table used to count tokens (cl100k_base unless a gpt-4o/4.1/5 family model).
	LLMModel string
	// LogLevel is MITHUB_LOG_LEVEL: debug, info, warn or error (default info).
	LogLevel slog.Level
	// PprofAddr is MITHUB_PPROF_ADDR (default empty: off); when set, Go's
	// profiler is served there. Keep it on a loopback address.
	PprofAddr string
	// ShutdownTimeout is MITHUB_SHUTDOWN_TIMEOUT (default 15s): how long
	// in-flight requests may take after a stop signal.
	ShutdownTimeout time.Duration
}

// Load reads the configuration from the environment and validates it.
func Load() (Config, error) { return load(envconf.New()) }

// FromMap reads the configuration from m; tests use it.
func FromMap(m map[string]string) (Config, error) { return load(envconf.FromMap(m)) }

func load(r *envconf.Reader) (Config, error) {
	c := Config{
		Env:              r.OneOf("MITHUB_ENV", EnvProd, EnvDev, EnvProd),
		DatabaseURL:      r.String("MITHUB_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mithub?sslmode=disable"),
		DatabaseMaxConns: r.Int("MITHUB_DATABASE_MAX_CONNS", 16, 1, 1000),
		AutoMigrate:      r.Bool("MITHUB_AUTO_MIGRATE", true),
		RedisURL:         r.String("MITHUB_REDIS_URL", "redis://127.0.0.1:6379/0"),
		HTTPAddr:         r.String("MITHUB_HTTP_ADDR", ":8080"),
		BodyLimit:        r.Int("MITHUB_HTTP_BODY_LIMIT", 4<<20, 1<<10, 256<<20),
		CacheSize:        r.Int("MITHUB_CACHE_SIZE", 1000, 1, 10_000_000),
		CacheTTL:         r.Duration("MITHUB_CACHE_TTL", time.Hour),
		Context: meetingctx.Config{
			L0MaxTurns:  r.Int("MITHUB_CTX_L0_MAX_TURNS", meetingctx.DefaultL0MaxTurns, 1, 10_000),
			L0MaxTokens: r.Int("MITHUB_CTX_L0_MAX_TOKENS", meetingctx.DefaultL0MaxTokens, 1, 10_000_000),
		},
		LLMModel:        r.String("MITHUB_LLM_MODEL", ""),
		ShutdownTimeout: r.Duration("MITHUB_SHUTDOWN_TIMEOUT", 15*time.Second),
		PprofAddr:       r.String("MITHUB_PPROF_ADDR", ""),
	}
	lvl, err := logging.ParseLevel(r.String("MITHUB_LOG_LEVEL", "info"))
	if err != nil {
		r.Fail("MITHUB_LOG_LEVEL", "%v", err)
	}
	c.LogLevel = lvl
	return c, r.Err()
}
