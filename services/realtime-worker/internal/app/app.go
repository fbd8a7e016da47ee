package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/health"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/realtime-worker/internal/config"
)

// userAgent identifies the worker to agent-api.
const userAgent = "mithub-realtime-worker/1"

// probeTimeout bounds the start-up check of agent-api.
const probeTimeout = 3 * time.Second

// App is a wired realtime-worker.
type App struct {
	cfg   config.Config
	log   *slog.Logger
	store *store.Store
	redis *redis.Client
	// api answers health probes in one attempt; callers bound it with ctx.
	api  *apiclient.Client
	ln   net.Listener
	http *http.Server
}

// New connects to PostgreSQL (migrating only when configured), Redis and
// agent-api, and binds the HTTP listener. Redis and agent-api being down is
// logged, not fatal: /readyz reports them.
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
	ropts, err := redis.ParseURL(a.cfg.RedisURL)
	if err != nil {
		return errors.New("MITHUB_REDIS_URL is not a valid redis URL")
	}
	a.redis = redis.NewClient(ropts)
	if err := a.redis.Ping(ctx).Err(); err != nil {
		// Not fatal: /readyz reports it and the client reconnects.
		a.log.Warn("redis not reachable", "err", err)
	}
	a.api = apiclient.New(a.cfg.APIURL, a.cfg.APIKey,
		apiclient.WithUserAgent(userAgent), apiclient.WithRetryPolicy(apiclient.NoRetry()))
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if err := a.api.Healthz(pctx); err != nil {
		a.log.Warn("agent-api not reachable", "url", a.cfg.APIURL, "err", err)
	}

	a.ln, err = net.Listen("tcp", a.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", a.cfg.HTTPAddr, err)
	}
	a.http = &http.Server{
		Handler:           a.routes(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       60 * time.Second,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	return nil
}

func (a *App) routes() http.Handler {
	mux := http.NewServeMux()
	health.Register(mux, a.log, map[string]health.Check{
		"postgres":  a.store.Ping,
		"redis":     func(ctx context.Context) error { return a.redis.Ping(ctx).Err() },
		"agent-api": a.api.Healthz,
	})
	return mux
}

// Addr is the address the HTTP server listens on.
func (a *App) Addr() net.Addr { return a.ln.Addr() }

// Run serves HTTP until ctx is done, then shuts down: stop accepting, drain
// in-flight requests within the shutdown timeout, close Redis and the pool
// last.
func (a *App) Run(ctx context.Context) error {
	a.log.Info("realtime-worker listening", "addr", a.ln.Addr().String(), "env", a.cfg.Env,
		"livekit_url", a.cfg.LiveKitURL, "wake_words", a.cfg.WakeWords)
	errc := make(chan error, 1)
	go func() { errc <- a.http.Serve(a.ln) }()

	select {
	case err := <-errc:
		a.close()
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	a.log.Info("shutting down", "timeout", a.cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
	defer cancel()
	err := a.http.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
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
	if a.ln != nil {
		_ = a.ln.Close()
	}
	if a.redis != nil {
		_ = a.redis.Close()
	}
	a.store.Close()
}
