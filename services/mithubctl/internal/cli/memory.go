package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/envconf"
	"github.com/mithub/mithub/pkg/llm/openai"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tokens"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// memoryFlags say where the memory lives and whose it is. The tenant is
// the one the API key belongs to, or --tenant by name.
type memoryFlags struct {
	DatabaseURL string
	APIKey      string
	Tenant      string
	RedisURL    string
	// Window is the model window in tokens (default from the LLM
	// settings).
	Window int
}

func (m *memoryFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.DatabaseURL, "database-url", "", "PostgreSQL URL (default $"+cmdline.EnvDatabaseURL+" or "+cmdline.DefaultDatabaseURL+")")
	fs.StringVar(&m.APIKey, "api-key", "", "API key whose tenant owns the memory (default $"+cmdline.EnvAPIKey+")")
	fs.StringVar(&m.Tenant, "tenant", "", "tenant name, instead of an API key")
	fs.StringVar(&m.RedisURL, "redis-url", "", "Redis URL for the task queue (default $"+cmdline.EnvRedisURL+" or "+cmdline.DefaultRedisURL+")")
	fs.IntVar(&m.Window, "window", 0, "model context window in tokens (default $MITHUB_LLM_CONTEXT_WINDOW or the model's)")
}

func (m *memoryFlags) resolve(command string, getenv func(string) string) error {
	m.DatabaseURL = cmdline.Setting(m.DatabaseURL, getenv, cmdline.EnvDatabaseURL, cmdline.DefaultDatabaseURL)
	m.RedisURL = cmdline.Setting(m.RedisURL, getenv, cmdline.EnvRedisURL, cmdline.DefaultRedisURL)
	if m.APIKey == "" && m.Tenant == "" {
		m.APIKey = getenv(cmdline.EnvAPIKey)
	}
	if strings.TrimSpace(m.APIKey) == "" && strings.TrimSpace(m.Tenant) == "" {
		return cmdline.UsageErrorf(command, "no tenant: set %s, pass --api-key or --tenant", cmdline.EnvAPIKey)
	}
	if m.Window < 0 {
		return cmdline.UsageErrorf(command, "--window must not be negative")
	}
	return nil
}

// memoryEnv is an open memory for one tenant.
type memoryEnv struct {
	st       *store.Store
	svc      *convmemory.Service
	eng      *convmemory.Engine
	queue    *convmemory.Queue
	tenantID string
	redis    redis.UniversalClient
}

func (m *memoryEnv) Close() {
	if m.redis != nil {
		_ = m.redis.Close()
	}
	m.st.Close()
}

// memoryVars are the variables memory settings come from.
var memoryVars = []string{"MITHUB_LLM_PROVIDER", "MITHUB_LLM_BASE_URL", "MITHUB_LLM_API_KEY", "MITHUB_LLM_MODEL",
	"MITHUB_LLM_CONTEXT_WINDOW", "MITHUB_LLM_TIMEOUT", "MITHUB_MEMORY_CHUNK_TOKENS", "MITHUB_MEMORY_FAN_IN",
	"MITHUB_MEMORY_MAX_IN_FLIGHT", "MITHUB_MEMORY_COMPRESS_AT", "MITHUB_MEMORY_COMPRESS_TO",
	"MITHUB_MEMORY_SUMMARY_TOKENS", "MITHUB_MEMORY_MERGE_TOKENS"}

// llmSettings are the summarizer settings read from the environment.
type llmSettings struct {
	provider, baseURL, apiKey, model string
	cfg                              convmemory.Config
	openai                           openai.Config
}

func loadLLMSettings(getenv func(string) string) (llmSettings, error) {
	vals := map[string]string{}
	for _, k := range memoryVars {
		if v := getenv(k); v != "" {
			vals[k] = v
		}
	}
	r := envconf.FromMap(vals)
	s := llmSettings{
		provider: r.OneOf("MITHUB_LLM_PROVIDER", "local", "local", "openai"),
		baseURL:  r.String("MITHUB_LLM_BASE_URL", ""),
		apiKey:   r.String("MITHUB_LLM_API_KEY", ""),
		model:    r.String("MITHUB_LLM_MODEL", ""),
		cfg:      convmemory.LoadConfig(r),
	}
	s.openai = openai.Config{BaseURL: s.baseURL, APIKey: s.apiKey, Model: s.model,
		Timeout: r.Duration("MITHUB_LLM_TIMEOUT", openai.DefaultTimeout)}
	if s.provider == "openai" && (s.baseURL == "" || s.model == "") {
		r.Fail("MITHUB_LLM_BASE_URL", "MITHUB_LLM_PROVIDER=openai needs MITHUB_LLM_BASE_URL and MITHUB_LLM_MODEL")
	}
	return s, r.Err()
}

// summarizer returns the configured summarizer.
func (s llmSettings) summarizer() (convmemory.Summarizer, error) {
	if s.provider != "openai" {
		return convmemory.NewLocal(), nil
	}
	c, err := openai.New(s.openai)
	if err != nil {
		return nil, fmt.Errorf("LLM provider: %w", err)
	}
	cfg := s.cfg.WithDefaults()
	return convmemory.Chat{Chat: c, Model: s.model, SummaryTokens: cfg.SummaryTokens, MergeTokens: cfg.MergeTokens}, nil
}

// openMemory connects to PostgreSQL (migrating it), resolves the tenant
// and builds the memory service. With queue, compressions are enqueued
// on Redis for pr-worker; otherwise they run in this process.
func openMemory(ctx context.Context, f memoryFlags, getenv func(string) string, queue bool, log io.Writer) (*memoryEnv, error) {
	ls, err := loadLLMSettings(getenv)
	if err != nil {
		return nil, err
	}
	if f.Window > 0 {
		ls.cfg.ContextWindow = f.Window
	}
	sum, err := ls.summarizer()
	if err != nil {
		return nil, err
	}
	count, err := tokens.ForModel(ls.model)
	if err != nil {
		return nil, err
	}
	st, err := cmdline.OpenMigratedStore(ctx, f.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	m := &memoryEnv{st: st}
	var t store.Tenant
	if f.Tenant != "" {
		t, err = st.EnsureTenant(ctx, f.Tenant)
	} else {
		t, err = st.Authenticate(ctx, strings.TrimSpace(f.APIKey))
	}
	if err != nil {
		m.Close()
		if errors.Is(err, store.ErrUnauthenticated) || errors.Is(err, store.ErrNotFound) {
			return nil, errors.New("the API key is unknown or revoked")
		}
		return nil, fmt.Errorf("resolve tenant: %w", err)
	}
	m.tenantID = t.ID
	m.eng = convmemory.NewEngine(st, count, sum, ls.cfg)
	var run convmemory.Runner = convmemory.NewInline(m.eng)
	if queue {
		opt, err := asynq.ParseRedisURI(f.RedisURL)
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("%s is not a valid redis URL", cmdline.EnvRedisURL)
		}
		rc, ok := opt.MakeRedisClient().(redis.UniversalClient)
		if !ok {
			m.Close()
			return nil, fmt.Errorf("%s: unsupported connection type", cmdline.EnvRedisURL)
		}
		m.redis = rc
		m.queue = convmemory.NewQueue(m.eng, asynq.NewClientFromRedisClient(rc), rc, convmemory.QueueOptions{},
			slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn})))
		run = m.queue
	}
	m.svc = convmemory.NewService(m.eng, run)
	return m, nil
}

// memoryError turns memory's input errors into usage errors.
func memoryError(command string, err error) error {
	if errors.Is(err, convmemory.ErrInvalid) {
		return cmdline.UsageErrorf(command, "%v", err)
	}
	return err
}
