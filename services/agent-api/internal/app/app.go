// Package app is agent-api's composition root: it builds every component
// from the configuration, runs the HTTP server and shuts down in order.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/health"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/tokens"
	"github.com/mithub/mithub/pkg/wakeword"
	"github.com/mithub/mithub/pkg/webhook"
	"github.com/mithub/mithub/services/agent-api/internal/ask"
	"github.com/mithub/mithub/services/agent-api/internal/config"
	"github.com/mithub/mithub/services/agent-api/internal/httpapi"
	"github.com/mithub/mithub/services/agent-api/internal/meetingcache"
	"github.com/mithub/mithub/services/agent-api/internal/meetings"
	"github.com/mithub/mithub/services/agent-api/internal/prs"
	"github.com/mithub/mithub/services/agent-api/internal/search"
)

// Dev credentials bootstrapped when MITHUB_ENV=dev.
const (
	DevTenant = "dev"
	DevAPIKey = "dev-key"
)

// App is a wired agent-api.
type App struct {
	cfg    config.Config
	log    *slog.Logger
	store  *store.Store
	redis  redis.UniversalClient
	engine *meetingctx.Engine
	// owners holds the advisory locks that make this process the L1
	// owner of meetings; cache listens for meeting changes.
	owners *store.L1Owners
	cache  *meetingcache.Cache
	bank   *ask.BankCache
	// checkpoints writes ask checkpoints in batches (group commit);
	// meetingRows reads the asks' meeting rows in batches.
	checkpoints *store.CheckpointWriter
	meetingRows *store.MeetingReader
	http        *fiber.App
	reg         *prometheus.Registry
}

// New connects to PostgreSQL and Redis, migrates, and builds the server.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (*App, error) {
	// Only dev mode accepts the dev bootstrap key; prod refuses it even
	// when a dev-mode process wrote it into the same database.
	st, err := store.Connect(ctx, cfg.DatabaseURL, store.Options{
		MaxConns: int32(cfg.DatabaseMaxConns), AcceptDevKeys: cfg.Env == config.EnvDev,
	}, 30*time.Second, log)
	if err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, log: log, store: st}
	if err := a.init(ctx); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

func (a *App) init(ctx context.Context) error {
	if a.cfg.AutoMigrate {
		ran, err := a.store.Migrate(ctx)
		if err != nil {
			return err
		}
		if len(ran) > 0 {
			a.log.Info("migrations applied", "versions", ran)
		}
	}
	if a.cfg.Env == config.EnvDev {
		if err := a.store.PutDevAPIKey(ctx, DevTenant, "dev bootstrap", DevAPIKey); err != nil {
			return fmt.Errorf("bootstrap dev tenant: %w", err)
		}
		a.log.Warn("dev mode: tenant dev accepts API key dev-key; set MITHUB_ENV=prod in production")
	} else if n, err := a.store.CountDevAPIKeys(ctx); err != nil {
		a.log.Warn("count dev API keys", "err", err)
	} else if n > 0 {
		a.log.Warn("the database holds dev API keys (written by a dev-mode process); this prod process refuses them",
			"dev_keys", n)
	}
	// redis://, rediss://, redis-sentinel:// and redis-cluster:// URLs.
	rdb, err := tasks.NewRedisClient(a.cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("MITHUB_REDIS_URL: %w", err)
	}
	a.redis = rdb
	if err := a.redis.Ping(ctx).Err(); err != nil {
		// Not fatal: /readyz reports it and the client reconnects.
		a.log.Warn("redis not reachable", "err", err)
	}

	counter, err := tokens.ForModel(a.cfg.LLM.Model)
	if err != nil {
		return err
	}
	vec, err := a.store.EnableVectors(ctx, a.cfg.Embed.Dim)
	if err != nil {
		return err
	}
	a.log.Info("topic vectors", "mode", a.store.VectorMode(), "pgvector", vec, "dim", a.cfg.Embed.Dim)
	corr := &tokens.Corrector{}
	prov, err := newProviders(a.cfg, &http.Client{}, counter, corr)
	if err != nil {
		return err
	}
	// Replicas share meetings: one owns a meeting's L1 work at a time.
	a.owners = a.store.NewL1Owners()
	a.engine = meetingctx.NewEngine(meetingctx.EngineDeps{
		Segmenter: prov.segmenter, Summarizer: prov.summarizer, Embedder: prov.embedder,
		Store: meetingcache.TopicStore{Rows: a.store}, Turns: meetingcache.TurnSource{Rows: a.store}, Log: a.log, MaxConcurrentLLM: a.cfg.MaxConcurrentLLM,
		Owner: a.owners, Shared: meetingcache.Shared{Rows: a.store}, OwnerRetry: a.cfg.L1OwnerRetry,
	})
	reg := prometheus.NewRegistry()
	a.reg = reg
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := httpapi.NewMetrics(reg)
	var asker *ask.Service
	cache := meetingcache.New(a.store, a.cfg.Context, a.engine, a.cfg.CacheSize, a.cfg.CacheTTL, meetingcache.Observer{
		Hit: metrics.CacheHits.Inc, Miss: metrics.CacheMiss.Inc, Evict: metrics.CacheEvict.Inc,
		// A meeting that leaves memory takes its cached topics along.
		Dropped: func(tenantID, meetingID string) { asker.ForgetMeeting(tenantID, meetingID) },
	})
	a.cache = cache
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mithub_context_cache_size", Help: "Meetings whose context is in memory.",
	}, func() float64 { return float64(cache.Len()) }))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mithub_l1_owned_meetings", Help: "Meetings whose L1 work this process owns.",
	}, func() float64 { return float64(a.owners.Count()) }))

	model := a.cfg.LLM.Model
	if a.cfg.LLM.Provider == config.ProviderLocal {
		model = "local"
	}
	// Memory banks are cached while a listener hears every write to them.
	a.bank = ask.NewBankCache(ask.StoredBank(a.store), 0)
	a.checkpoints, a.meetingRows = a.store.NewCheckpointWriter(), a.store.NewMeetingReader()
	asker = &ask.Service{
		Store: ask.BatchedStore{Store: a.store, Checkpoints: a.checkpoints, Meetings: a.meetingRows}, Contexts: cache, Planner: prov.planner, Answerer: prov.answerer, Counter: counter,
		Model: model, Window: tokens.ContextWindow(model, a.cfg.LLM.ContextWindow), ReservedOutput: a.cfg.LLM.MaxOutputTokens,
		Corrector: corr, L1Wait: a.cfg.Context.WithDefaults().L1Wait, Log: a.log,
		MemoryBank: a.bank.Bank, TopicCacheBytes: int64(a.cfg.AskTopicCacheBytes),
		CatchUpWindow: a.cfg.CatchUpWindow,
	}
	if asker.Wake, err = wakeword.New(wakeword.Config{Names: a.cfg.WakeWords, MaxEdits: a.cfg.WakeMaxEdits}); err != nil {
		return err
	}
	if a.cfg.AskTopicCacheBytes == 0 {
		asker.TopicCacheBytes = -1
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mithub_ask_topic_cache_bytes", Help: "Estimated bytes of the indexed topic turns kept between asks.",
	}, func() float64 { _, n := asker.TopicCacheStats(); return float64(n) }))
	// Compressions asked for over MCP run on pr-worker through the queue.
	memEngine := convmemory.NewEngine(a.store, counter, convmemory.NewLocal(), a.cfg.Memory)
	memQueue := convmemory.NewQueue(memEngine, asynq.NewClientFromRedisClient(a.redis), a.redis,
		convmemory.QueueOptions{QueueName: tasks.MemoryQueueName}, a.log.With("component", "memory"))
	// Memory-bank writes go through bank so its cache drops at once. The
	// queue client shares the Redis connection pool; a.redis is closed
	// last, in close.
	bank := bankWrites{a.store, a.bank}
	events := &webhook.Emitter{Store: a.store, Queue: tasks.WebhookQueue{Client: asynq.NewClientFromRedisClient(a.redis)}, Log: a.log}
	prFlow := &prs.Service{
		PRs: bank, Queue: asynq.NewClientFromRedisClient(a.redis), Meetings: a.store, Contexts: cache,
		L1Wait: a.cfg.Context.WithDefaults().L1Wait, MemoryBankMaxBytes: a.cfg.MemoryBankMaxBytes, Log: a.log, Events: events,
	}
	a.http = httpapi.New(httpapi.Deps{
		Log: a.log, Store: a.store, Contexts: cache, Metrics: metrics, Registry: reg,
		BodyLimit: a.cfg.BodyLimit, L1Wait: a.cfg.Context.WithDefaults().L1Wait,
		Meetings: &meetings.Service{Store: a.store, Contexts: cache, Tokens: counter, Log: a.log, Ended: prFlow.MeetingEnded, Events: events},
		Webhooks: a.store, WebhookConfig: a.cfg.Webhook,
		PRFlow: prFlow,
		Search: &search.Service{Embedder: a.engine, Searcher: a.store, Threshold: a.cfg.Context.WithDefaults().SearchThreshold,
			Contexts: cache, Turns: asker, Log: a.log},
		Ask: asker, Memory: convmemory.NewService(memEngine, memQueue),
		MemoryBank:       bank,
		RateLimit:        httpapi.RateLimit{RPS: a.cfg.RateLimitRPS, Burst: a.cfg.RateLimitBurst},
		AuthFailureLimit: httpapi.RateLimit{RPS: a.cfg.AuthFailureRPS, Burst: a.cfg.AuthFailureBurst},
		CORSOrigins:      a.cfg.CORSOrigins,
		MeetingChanges:   cache.OnChange,
		Streams: httpapi.StreamLimits{PerKey: a.cfg.EventsMaxPerKey, PerTenant: a.cfg.EventsMaxPerTenant,
			Server: a.cfg.EventsMaxStreams, KeyRecheck: a.cfg.EventsKeyRecheck},
		Ready: map[string]health.Check{
			"postgres": a.store.Ping,
			"redis":    func(ctx context.Context) error { return a.redis.Ping(ctx).Err() },
		},
	})
	return nil
}

// Run serves HTTP until ctx is done, then shuts down: stop accepting,
// drain in-flight requests within the shutdown timeout, close Redis and
// the pool last.
func (a *App) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", a.cfg.HTTPAddr)
	if err != nil {
		a.close()
		return fmt.Errorf("listen on %s: %w", a.cfg.HTTPAddr, err)
	}
	a.log.Info("agent-api listening", "addr", ln.Addr().String(), "env", a.cfg.Env)
	if a.cfg.PprofAddr != "" {
		go a.servePprof(ctx)
	}
	bankDone := make(chan struct{})
	go func() {
		defer close(bankDone)
		a.bank.Run(ctx, a.store, a.log.With("component", "memory-bank-cache"))
	}()
	cacheDone := make(chan struct{})
	go func() {
		defer close(cacheDone)
		a.cache.Run(ctx, a.store, a.log.With("component", "meeting-cache"))
	}()
	errc := make(chan error, 1)
	// Accept errors never end Serve, and connections are capped below the
	// descriptor limit, globally and per client address.
	maxConns := a.cfg.HTTPMaxConns
	if maxConns == 0 {
		maxConns = httpapi.DefaultMaxConns()
	}
	perAddr := a.cfg.HTTPMaxConnsPerAddr
	if perAddr < 0 {
		perAddr = httpapi.DefaultMaxConnsPerAddr(maxConns)
	}
	limited := httpapi.LimitListener(httpapi.LingerListener(ln), httpapi.ConnLimits{
		MaxConns: maxConns, MaxConnsPerAddr: perAddr, Log: a.log.With("component", "http-listener"),
	})
	a.registerConnMetrics(limited)
	a.log.Info("http connection caps", "max_conns", maxConns, "max_conns_per_addr", perAddr)
	go func() { errc <- a.http.Listener(limited) }()

	select {
	case err := <-errc:
		a.close()
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	a.log.Info("shutting down", "timeout", a.cfg.ShutdownTimeout.String())
	err = a.http.ShutdownWithTimeout(a.cfg.ShutdownTimeout)
	// Shutdown closes only listeners Serve has taken up; closing ours too
	// ends a Serve that had not started yet.
	_ = limited.Close()
	<-bankDone
	<-cacheDone
	if serr := <-errc; serr != nil && !errors.Is(serr, net.ErrClosed) {
		a.log.Warn("http server stopped", "err", serr)
	}
	a.close()
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	a.log.Info("stopped")
	return nil
}

func (a *App) close() {
	if a.engine != nil {
		// Let L1 runners save their current chunk before the pool closes.
		if err := a.engine.Close(a.cfg.ShutdownTimeout); err != nil {
			a.log.Warn("L1 shutdown", "err", err)
		}
	}
	if a.owners != nil {
		// Other replicas take the meetings over at once.
		a.owners.Close()
	}
	if a.checkpoints != nil {
		// Saves accepted before the drain are written before the pool
		// closes.
		a.checkpoints.Close()
		a.meetingRows.Close()
	}
	if a.redis != nil {
		_ = a.redis.Close()
	}
	a.store.Close()
}

// registerConnMetrics exports the listener's counts.
func (a *App) registerConnMetrics(l *httpapi.ConnLimitListener) {
	if a.reg == nil {
		return
	}
	_ = a.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mithub_http_open_connections", Help: "HTTP connections open on agent-api's listener.",
	}, func() float64 { return float64(l.Open()) }))
	_ = a.reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "mithub_http_refused_connections_total", Help: "HTTP connections closed at accept for being over MITHUB_HTTP_MAX_CONNS or MITHUB_HTTP_MAX_CONNS_PER_ADDR.",
	}, func() float64 { return float64(l.Refused()) }))
	_ = a.reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "mithub_http_accept_errors_total", Help: "Failed accepts (EMFILE, ENFILE...) retried after a back-off.",
	}, func() float64 { return float64(l.AcceptErrors()) }))
}

// Handler exposes the HTTP app for in-process tests.
func (a *App) Handler() *fiber.App { return a.http }

// servePprof serves Go's profiler on its own listener until ctx is done.
func (a *App) servePprof(ctx context.Context) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: a.cfg.PprofAddr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	a.log.Info("pprof listening", "addr", a.cfg.PprofAddr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		a.log.Warn("pprof server", "err", err)
	}
}

// bankWrites is the store as the HTTP API writes memory banks: a write
// that commits also drops the cached bank at once, so a question asked
// here right after it does not wait for the write's notification.
type bankWrites struct {
	*store.Store
	bank *ask.BankCache
}

func (w bankWrites) PutMemoryEntry(ctx context.Context, tenantID, project, category, content string) (membank.Entry, error) {
	e, err := w.Store.PutMemoryEntry(ctx, tenantID, project, category, content)
	if err == nil {
		w.bank.Drop(tenantID, project)
	}
	return e, err
}

func (w bankWrites) MergeMemory(ctx context.Context, tenantID, project string, categories []string, merge membank.Merger) error {
	err := w.Store.MergeMemory(ctx, tenantID, project, categories, merge)
	if err == nil {
		w.bank.Drop(tenantID, project)
	}
	return err
}

func (w bankWrites) ApprovePR(ctx context.Context, tenantID, id string, categories []string, merge membank.Merger, status func(meetingpr.PR) string) (meetingpr.PR, error) {
	pr, err := w.Store.ApprovePR(ctx, tenantID, id, categories, merge, status)
	if err == nil {
		w.bank.Drop(tenantID, pr.Project)
	}
	return pr, err
}
