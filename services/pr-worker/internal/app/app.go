package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/health"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/webhook"
	"github.com/mithub/mithub/services/pr-worker/internal/config"
	"github.com/mithub/mithub/services/pr-worker/internal/jobs"
)

// App is a wired pr-worker.
type App struct {
	cfg       config.Config
	log       *slog.Logger
	store     *store.Store
	redis     redis.UniversalClient
	queue     *asynq.Server
	extractor prdoc.Extractor
	memory    *jobs.Memory
	client    *asynq.Client
	events    *webhook.Emitter
	deliverer *webhook.Deliverer
	ln        net.Listener
	http      *http.Server
}

// New connects to PostgreSQL and Redis, migrates when configured, binds the
// health listener and builds the Asynq server. Nothing is processed until
// Run.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (*App, error) {
	st, err := store.Connect(ctx, cfg.DatabaseURL, store.Options{}, 30*time.Second, log)
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
	// redis://, rediss://, redis-sentinel:// and redis-cluster:// URLs.
	rc, err := tasks.NewRedisClient(a.cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("MITHUB_REDIS_URL: %w", err)
	}
	a.redis = rc
	if err := a.redis.Ping(ctx).Err(); err != nil {
		// Not fatal: /readyz reports it and asynq reconnects.
		a.log.Warn("redis not reachable", "err", err)
	}
	if a.extractor, err = newExtractor(a.cfg.LLM); err != nil {
		return err
	}
	llm := a.cfg.LLM
	if a.memory, err = jobs.NewMemory(a.cfg.Memory, jobs.MemoryLLM{Provider: llm.Provider, BaseURL: llm.BaseURL,
		APIKey: llm.APIKey, Model: llm.Model, Timeout: llm.Timeout}, a.store, a.redis, a.log); err != nil {
		return err
	}
	a.client = asynq.NewClientFromRedisClient(a.redis)
	a.events = &webhook.Emitter{Store: a.store, Queue: tasks.WebhookQueue{Client: a.client}, Log: a.log}
	a.deliverer = &webhook.Deliverer{Store: a.store, Client: webhook.Client(a.cfg.Webhook.Timeout, a.cfg.Webhook.AllowPrivate),
		DisableAfter: a.cfg.Webhook.DisableAfter, Log: a.log}
	a.queue = asynq.NewServerFromRedisClient(a.redis, asynq.Config{
		Concurrency:     a.cfg.Concurrency,
		Queues:          a.cfg.Queues,
		ShutdownTimeout: a.cfg.ShutdownTimeout,
		RetryDelayFunc:  tasks.RetryDelay,
		ErrorHandler:    tasks.ErrorHandler(a.log),
		Logger:          tasks.Logger(a.log.With("component", "asynq")),
		LogLevel:        tasks.LogLevel(a.cfg.LogLevel),

		// Memory tasks enqueue their successors: poll an empty queue often.
		TaskCheckInterval: 100 * time.Millisecond,
		// Retries (webhook deliveries back off from 1 s) are due on time.
		DelayedTaskCheckInterval: time.Second,
	})

	a.ln, err = net.Listen("tcp", a.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", a.cfg.HTTPAddr, err)
	}
	mux := http.NewServeMux()
	health.Register(mux, a.log, map[string]health.Check{
		"postgres": a.store.Ping,
		"redis":    func(ctx context.Context) error { return a.redis.Ping(ctx).Err() },
	})
	a.http = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       60 * time.Second,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	return nil
}

// mux routes every task type to its handler; this is the one place task
// types are registered. Handlers get their dependencies (a.store, ...)
// through their constructors.
func (a *App) mux() *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.Use(jobs.TraceTasks)
	mux.Handle(jobs.TypePing, jobs.PingHandler{})
	prs := jobs.NewPRGenerateHandler(a.store, a.extractor, a.cfg.PRTurnsInFlight, a.log.With("task_type", tasks.TypePRGenerate))
	prs.Events = a.events
	mux.Handle(tasks.TypePRGenerate, prs)
	bank := jobs.NewMemoryBankHandler(a.store, a.extractor, a.cfg.MemoryBankMaxBytes, a.log.With("task_type", tasks.TypeMemoryBankUpdate))
	bank.Events = a.events
	mux.Handle(tasks.TypeMemoryBankUpdate, bank)
	mux.Handle(tasks.TypeWebhookDeliver, jobs.NewWebhookHandler(a.deliverer, a.log.With("task_type", tasks.TypeWebhookDeliver)))
	a.memory.Register(mux)
	return mux
}

// Addr is the address the health server listens on.
func (a *App) Addr() net.Addr { return a.ln.Addr() }

// Run processes tasks and serves health checks until ctx is done, then
// shuts down: stop the health server, let in-flight tasks finish within the
// shutdown timeout (asynq pushes back the rest), close Redis and the pool
// last.
func (a *App) Run(ctx context.Context) error {
	// Resume before the server takes tasks: a task of the old run that this
	// worker picked up first would check its epoch, find it current, and
	// summarise the same node as the resumed run's task.
	if n, err := a.memory.Resume(ctx); err != nil {
		a.log.Warn("resume memory compressions", "err", err)
	} else if n > 0 {
		a.log.Info("memory compressions resumed", "jobs", n)
	}
	if err := a.queue.Start(a.mux()); err != nil {
		a.close()
		return fmt.Errorf("start asynq server: %w", err)
	}
	a.log.Info("pr-worker running", "addr", a.ln.Addr().String(),
		"queues", a.cfg.Queues, "concurrency", a.cfg.Concurrency)
	errc := make(chan error, 1)
	go func() { errc <- a.http.Serve(a.ln) }()

	var serveErr error
	select {
	case err := <-errc:
		serveErr = fmt.Errorf("serve health http: %w", err)
		a.log.Error("health server stopped, shutting down", "err", err)
	case <-ctx.Done():
		a.log.Info("shutting down", "timeout", a.cfg.ShutdownTimeout.String())
	}
	if serveErr == nil {
		hctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
		if err := a.http.Shutdown(hctx); err != nil {
			a.log.Warn("health server shutdown", "err", err)
		}
		cancel()
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Warn("health server stopped", "err", err)
		}
	}
	a.queue.Shutdown()
	a.close()
	if serveErr != nil {
		return serveErr
	}
	a.log.Info("stopped")
	return nil
}

func (a *App) close() {
	if a.ln != nil {
		_ = a.ln.Close()
	}
	if a.client != nil {
		_ = a.client.Close()
	}
	if a.redis != nil {
		_ = a.redis.Close()
	}
	a.store.Close()
}
