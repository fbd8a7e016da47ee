// Package config reads agent-api's settings from the environment.
package config

import (
	"log/slog"
	"time"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/envconf"
	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/wakeword"
	"github.com/mithub/mithub/pkg/webhook"
	"github.com/mithub/mithub/services/agent-api/internal/ask"
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
	// HTTPMaxConns is MITHUB_HTTP_MAX_CONNS (default 0: 3/4 of the
	// process's file-descriptor limit): open HTTP connections; new ones
	// over it are closed at accept.
	HTTPMaxConns int
	// HTTPMaxConnsPerAddr is MITHUB_HTTP_MAX_CONNS_PER_ADDR (default -1:
	// half the global cap, at most 1024, so one address never holds every
	// slot; 0: no cap): open HTTP connections of one client IP address.
	// Behind a proxy every client shares the proxy's address: raise it there.
	HTTPMaxConnsPerAddr int
	// BodyLimit is MITHUB_HTTP_BODY_LIMIT in bytes (default 4 MiB); larger
	// bodies get 413.
	BodyLimit int
	// CacheSize is MITHUB_CACHE_SIZE, meetings kept in memory (default 1000).
	CacheSize int
	// CacheTTL is MITHUB_CACHE_TTL, idle time before a meeting's context is
	// dropped from memory (default 1h).
	CacheTTL time.Duration
	// AskTopicCacheBytes is MITHUB_ASK_TOPIC_CACHE_BYTES (default 128 MiB;
	// 0 keeps none): the indexed turns of searched topics and their turn
	// embeddings kept between asks, by estimated size; only the newest
	// version of a topic is kept.
	AskTopicCacheBytes int
	// WakeWords is MITHUB_WAKE_WORDS and WakeMaxEdits
	// MITHUB_WAKE_MAX_EDITS, as realtime-worker reads them (see
	// pkg/wakeword): turns addressed to the bot are never evidence.
	WakeWords    []string
	WakeMaxEdits int
	// AnswerMinWords and AnswerMaxWords are MITHUB_ASK_ANSWER_MIN_WORDS
	// and MITHUB_ASK_ANSWER_MAX_WORDS (defaults 40 and 90): the length
	// bounds of the local provider's extractive answers, in words spoken
	// (textutil.SpokenWords).
	AnswerMinWords, AnswerMaxWords int
	// L1OwnerRetry is MITHUB_CTX_OWNER_RETRY (default 1s): how often a
	// replica with L1 work due on a meeting another replica owns tries to
	// take it over; it bounds the takeover after the owner dies.
	L1OwnerRetry time.Duration
	// CatchUpWindow is MITHUB_CATCHUP_WINDOW (default 5m): how far back
	// "what did I miss?" looks when the asker neither left nor joined late.
	CatchUpWindow time.Duration
	// MemoryBankMaxBytes is MITHUB_MEMORY_BANK_MAX_BYTES (default 16384):
	// the bytes of meeting sections one memory-bank category keeps when a
	// PR's updates are approved; the oldest meetings' sections go first
	// (0: no bound). pr-worker applies the same bound after a meeting.
	MemoryBankMaxBytes int
	// Memory is the long-conversation memory (MITHUB_MEMORY_*); the MCP
	// memory tools plan compressions here and pr-worker runs them.
	Memory convmemory.Config
	// Webhook holds the webhook settings, MITHUB_WEBHOOK_* (webhook.LoadConfig):
	// agent-api checks targets and rotates secrets with them.
	Webhook webhook.Config
	// Context holds the MITHUB_CTX_* limits: L0_MAX_TURNS (25),
	// L0_MAX_TOKENS (3000), CHUNK_TURNS (25), BUFFER_MAX_TURNS (100),
	// BUFFER_MAX_TOKENS (10000), MAX_TOPICS (30), MERGE_THRESHOLD (0.80),
	// SEARCH_TOP_K (5), SEARCH_THRESHOLD (0.30), L1_WAIT (1.5s).
	Context meetingctx.Config
	// MaxConcurrentLLM is MITHUB_CTX_MAX_CONCURRENT_LLM (default 8): provider
	// calls in flight across all meetings.
	MaxConcurrentLLM int
	// LLM is the chat provider: MITHUB_LLM_PROVIDER (local|openai, default
	// local), MITHUB_LLM_BASE_URL, MITHUB_LLM_API_KEY, MITHUB_LLM_MODEL
	// (default empty; it also picks the BPE table for token counts:
	// o200k_base for gpt-4o/4.1/5 families, else cl100k_base),
	// MITHUB_LLM_CONTEXT_WINDOW (default 0: from the model table),
	// MITHUB_LLM_TIMEOUT (default 60s).
	LLM LLMConfig
	// Embed is the embedding provider: MITHUB_EMBED_PROVIDER (local|openai,
	// default local), MITHUB_EMBED_BASE_URL (default the LLM base URL),
	// MITHUB_EMBED_MODEL, MITHUB_EMBED_DIM (default 256 local, 1024
	// openai).
	Embed EmbedConfig
	// LogLevel is MITHUB_LOG_LEVEL: debug, info, warn or error (default info).
	LogLevel slog.Level
	// PprofAddr is MITHUB_PPROF_ADDR (default empty: off); when set, Go's
	// profiler is served there. Keep it on a loopback address.
	PprofAddr string
	// ShutdownTimeout is MITHUB_SHUTDOWN_TIMEOUT (default 15s): how long
	// in-flight requests may take after a stop signal.
	ShutdownTimeout time.Duration
	// RateLimitRPS is MITHUB_RATE_LIMIT_RPS: requests per second each API
	// key may make on /v1 and /mcp, sustained (default 20 in prod, 0 in
	// dev; 0 means no limit).
	RateLimitRPS float64
	// RateLimitBurst is MITHUB_RATE_LIMIT_BURST (default 40): requests a key
	// may make at once before RateLimitRPS applies; 0 disables the limit.
	RateLimitBurst int
	// AuthFailureRPS is MITHUB_AUTH_FAILURE_RPS (default 1): failed
	// authentications per second each client IP address may make,
	// sustained; AuthFailureBurst is MITHUB_AUTH_FAILURE_BURST (default 30;
	// 0 disables the limit), how many at once. Over it, requests with an
	// unknown key or none get 429 without reaching PostgreSQL; keys already
	// known valid are not affected.
	AuthFailureRPS   float64
	AuthFailureBurst int
	// CORSOrigins is MITHUB_CORS_ORIGINS (default empty: no CORS headers),
	// comma-separated browser origins allowed to call the API: "*",
	// "https://app.example.com[:port]" or "https://*.example.com".
	CORSOrigins []string
	// EventsMaxPerKey is MITHUB_EVENTS_MAX_PER_KEY (default 20), the open
	// /events streams one API key may hold; over it: 429.
	EventsMaxPerKey int
	// EventsMaxPerTenant is MITHUB_EVENTS_MAX_PER_TENANT (default 100), the
	// open /events streams one tenant may hold; over it: 429.
	EventsMaxPerTenant int
	// EventsMaxStreams is MITHUB_EVENTS_MAX_STREAMS (default 1000), the open
	// /events streams of the server; over it: 503.
	EventsMaxStreams int
	// EventsKeyRecheck is MITHUB_EVENTS_KEY_RECHECK (default 30s, at most
	// 30s): how often an open /events stream re-authenticates its key; it
	// ends when the key was revoked.
	EventsKeyRecheck time.Duration
}

// DefaultRateLimitRPS is MITHUB_RATE_LIMIT_RPS's default in prod.
const DefaultRateLimitRPS = 20

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
	// MaxOutputTokens is reserved for an answer in the prompt budget and
	// caps it (MITHUB_LLM_MAX_OUTPUT_TOKENS, default 1024).
	MaxOutputTokens int
	Timeout         time.Duration
}

// EmbedConfig selects and configures the embedding provider.
type EmbedConfig struct {
	Provider string
	BaseURL  string
	APIKey   string
	Model    string
	Dim      int
}

// Load reads the configuration from the environment and validates it.
func Load() (Config, error) { return load(envconf.New()) }

// FromMap reads the configuration from m; tests use it.
func FromMap(m map[string]string) (Config, error) { return load(envconf.FromMap(m)) }

func load(r *envconf.Reader) (Config, error) {
	env := r.OneOf("MITHUB_ENV", EnvProd, EnvDev, EnvProd)
	// Prod limits each key by default; dev (benchmarks, load and chaos
	// runs on one key) does not.
	defaultRPS := float64(DefaultRateLimitRPS)
	if env == EnvDev {
		defaultRPS = 0
	}
	c := Config{
		Env:                 env,
		DatabaseURL:         r.String("MITHUB_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mithub?sslmode=disable"),
		DatabaseMaxConns:    r.Int("MITHUB_DATABASE_MAX_CONNS", 16, 1, 1000),
		AutoMigrate:         r.Bool("MITHUB_AUTO_MIGRATE", true),
		RedisURL:            r.String("MITHUB_REDIS_URL", "redis://127.0.0.1:6379/0"),
		HTTPAddr:            r.String("MITHUB_HTTP_ADDR", ":8080"),
		HTTPMaxConns:        r.Int("MITHUB_HTTP_MAX_CONNS", 0, 0, 100_000_000),
		HTTPMaxConnsPerAddr: r.Int("MITHUB_HTTP_MAX_CONNS_PER_ADDR", -1, -1, 100_000_000),
		BodyLimit:           r.Int("MITHUB_HTTP_BODY_LIMIT", 4<<20, 1<<10, 256<<20),
		CacheSize:           r.Int("MITHUB_CACHE_SIZE", 1000, 1, 10_000_000),
		CacheTTL:            r.Duration("MITHUB_CACHE_TTL", time.Hour),
		AskTopicCacheBytes:  r.Int("MITHUB_ASK_TOPIC_CACHE_BYTES", ask.DefaultTopicCacheBytes, 0, 1<<40),
		WakeWords:           r.List(wakeword.EnvWords, wakeword.DefaultNames),
		WakeMaxEdits:        r.Int(wakeword.EnvMaxEdits, wakeword.DefaultMaxEdits, 0, 5),
		CatchUpWindow:       r.Duration("MITHUB_CATCHUP_WINDOW", ask.DefaultCatchUpWindow),
		AnswerMinWords:      r.Int("MITHUB_ASK_ANSWER_MIN_WORDS", answer.DefaultMinWords, 5, 2000),
		AnswerMaxWords:      r.Int("MITHUB_ASK_ANSWER_MAX_WORDS", answer.DefaultMaxWords, 5, 2000),
		MemoryBankMaxBytes:  r.Int("MITHUB_MEMORY_BANK_MAX_BYTES", prdoc.DefaultMaxBytes, 0, 64<<20),
		Memory:              convmemory.LoadConfig(r),
		Webhook:             webhook.LoadConfig(r),
		Context: meetingctx.Config{
			L0MaxTurns:      r.Int("MITHUB_CTX_L0_MAX_TURNS", meetingctx.DefaultL0MaxTurns, 1, 10_000),
			L0MaxTokens:     r.Int("MITHUB_CTX_L0_MAX_TOKENS", meetingctx.DefaultL0MaxTokens, 1, 10_000_000),
			ChunkTurns:      r.Int("MITHUB_CTX_CHUNK_TURNS", meetingctx.DefaultChunkTurns, 1, 1000),
			BufferMaxTurns:  r.Int("MITHUB_CTX_BUFFER_MAX_TURNS", meetingctx.DefaultBufferMaxTurns, 1, 100_000),
			BufferMaxTokens: r.Int("MITHUB_CTX_BUFFER_MAX_TOKENS", meetingctx.DefaultBufferMaxTokens, 100, 10_000_000),
			MaxTopics:       r.Int("MITHUB_CTX_MAX_TOPICS", meetingctx.DefaultMaxTopics, 2, 100_000),
			MergeThreshold:  r.Float("MITHUB_CTX_MERGE_THRESHOLD", meetingctx.DefaultMergeThreshold, 0.01, 1),
			SearchTopK:      r.Int("MITHUB_CTX_SEARCH_TOP_K", meetingctx.DefaultSearchTopK, 1, 50),
			SearchThreshold: r.Float("MITHUB_CTX_SEARCH_THRESHOLD", meetingctx.DefaultSearchThreshold, 0.01, 1),
			L1Wait:          r.Duration("MITHUB_CTX_L1_WAIT", meetingctx.DefaultL1Wait),
		},
		MaxConcurrentLLM: r.Int("MITHUB_CTX_MAX_CONCURRENT_LLM", 8, 1, 1024),
		L1OwnerRetry:     r.Duration("MITHUB_CTX_OWNER_RETRY", meetingctx.DefaultOwnerRetry),
		LLM: LLMConfig{
			Provider:        r.OneOf("MITHUB_LLM_PROVIDER", ProviderLocal, ProviderLocal, ProviderOpenAI),
			BaseURL:         r.String("MITHUB_LLM_BASE_URL", ""),
			APIKey:          r.String("MITHUB_LLM_API_KEY", ""),
			Model:           r.String("MITHUB_LLM_MODEL", ""),
			ContextWindow:   r.Int("MITHUB_LLM_CONTEXT_WINDOW", 0, 0, 100_000_000),
			MaxOutputTokens: r.Int("MITHUB_LLM_MAX_OUTPUT_TOKENS", 1024, 16, 1_000_000),
			Timeout:         r.Duration("MITHUB_LLM_TIMEOUT", 60*time.Second),
		},
		ShutdownTimeout:  r.Duration("MITHUB_SHUTDOWN_TIMEOUT", 15*time.Second),
		PprofAddr:        r.String("MITHUB_PPROF_ADDR", ""),
		RateLimitRPS:     r.Float("MITHUB_RATE_LIMIT_RPS", defaultRPS, 0, 1_000_000),
		AuthFailureRPS:   r.Float("MITHUB_AUTH_FAILURE_RPS", 1, 0.001, 1_000_000),
		AuthFailureBurst: r.Int("MITHUB_AUTH_FAILURE_BURST", 30, 0, 1_000_000),
		RateLimitBurst:   r.Int("MITHUB_RATE_LIMIT_BURST", 40, 0, 1_000_000),
		CORSOrigins:      r.List("MITHUB_CORS_ORIGINS", nil),
	}
	c.EventsMaxPerKey = r.Int("MITHUB_EVENTS_MAX_PER_KEY", 20, 1, 1_000_000)
	c.EventsMaxPerTenant = r.Int("MITHUB_EVENTS_MAX_PER_TENANT", 100, 1, 1_000_000)
	c.EventsMaxStreams = r.Int("MITHUB_EVENTS_MAX_STREAMS", 1000, 1, 1_000_000)
	c.EventsKeyRecheck = r.Duration("MITHUB_EVENTS_KEY_RECHECK", 30*time.Second)
	if c.EventsKeyRecheck < 100*time.Millisecond || c.EventsKeyRecheck > 30*time.Second {
		r.Fail("MITHUB_EVENTS_KEY_RECHECK", "%s: must be between 100ms and 30s", c.EventsKeyRecheck)
	}
	for _, o := range c.CORSOrigins {
		if err := checkOrigin(o); err != nil {
			r.Fail("MITHUB_CORS_ORIGINS", "%q: %v", o, err)
		}
	}
	lvl, err := logging.ParseLevel(r.String("MITHUB_LOG_LEVEL", "info"))
	if err != nil {
		r.Fail("MITHUB_LOG_LEVEL", "%v", err)
	}
	c.LogLevel = lvl
	c.Embed = EmbedConfig{
		Provider: r.OneOf("MITHUB_EMBED_PROVIDER", ProviderLocal, ProviderLocal, ProviderOpenAI),
		BaseURL:  r.String("MITHUB_EMBED_BASE_URL", c.LLM.BaseURL),
		APIKey:   r.String("MITHUB_EMBED_API_KEY", c.LLM.APIKey),
		Model:    r.String("MITHUB_EMBED_MODEL", ""),
	}
	defDim := 256
	if c.Embed.Provider == ProviderOpenAI {
		defDim = 1024
	}
	c.Embed.Dim = r.Int("MITHUB_EMBED_DIM", defDim, 8, 16384)
	if c.LLM.Provider == ProviderOpenAI {
		if c.LLM.BaseURL == "" {
			r.Fail("MITHUB_LLM_BASE_URL", "required when MITHUB_LLM_PROVIDER=openai")
		}
		if c.LLM.Model == "" {
			r.Fail("MITHUB_LLM_MODEL", "required when MITHUB_LLM_PROVIDER=openai")
		}
	}
	if c.Embed.Provider == ProviderOpenAI {
		if c.Embed.BaseURL == "" {
			r.Fail("MITHUB_EMBED_BASE_URL", "required when MITHUB_EMBED_PROVIDER=openai (or set MITHUB_LLM_BASE_URL)")
		}
		if c.Embed.Model == "" {
			r.Fail("MITHUB_EMBED_MODEL", "required when MITHUB_EMBED_PROVIDER=openai")
		}
	}
	if _, err := wakeword.New(wakeword.Config{Names: c.WakeWords, MaxEdits: c.WakeMaxEdits}); err != nil {
		r.Fail(wakeword.EnvWords, "%v", err)
	}
	if c.CatchUpWindow <= 0 {
		r.Fail("MITHUB_CATCHUP_WINDOW", "must be positive")
	}
	if c.L1OwnerRetry <= 0 {
		r.Fail("MITHUB_CTX_OWNER_RETRY", "must be positive")
	}
	return c, r.Err()
}
