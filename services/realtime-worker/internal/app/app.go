package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/health"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/tokens"
	"github.com/mithub/mithub/services/realtime-worker/internal/audio"
	"github.com/mithub/mithub/services/realtime-worker/internal/config"
	"github.com/mithub/mithub/services/realtime-worker/internal/ingest"
	"github.com/mithub/mithub/services/realtime-worker/internal/jobs"
	"github.com/mithub/mithub/services/realtime-worker/internal/room"
	"github.com/mithub/mithub/services/realtime-worker/internal/stt"
	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
	"github.com/mithub/mithub/services/realtime-worker/internal/wake"
	"github.com/mithub/mithub/services/realtime-worker/internal/webhook"
)

// userAgent identifies the worker to agent-api.
const userAgent = "mithub-realtime-worker/1"

// probeTimeout bounds the start-up check of agent-api.
const probeTimeout = 3 * time.Second

// authWait bounds resolving MITHUB_API_KEY to a tenant at start.
const authWait = 30 * time.Second

// App is a wired realtime-worker.
type App struct {
	cfg   config.Config
	log   *slog.Logger
	store *store.Store
	redis redis.UniversalClient
	// api answers health probes in one attempt; callers bound it with ctx.
	api *apiclient.Client
	// work is the client of the sync pings, asks and meeting ends.
	work *apiclient.Client
	// stt is the bot's own speech-to-text, if any; listening are the
	// tracks it decodes.
	stt       stt.Provider
	listening room.Listening
	tenant    store.Tenant
	ln        net.Listener
	http      *http.Server

	spool   *ingest.Spool
	writer  *ingest.Writer
	pinger  *ingest.Pinger
	rooms   *room.Manager
	queue   *asynq.Server
	enqueue *asynq.Client

	// runCtx is cancelled to stop sessions and pings, after intake stopped.
	runCtx    context.Context
	stopWork  context.CancelFunc
	writerCtx context.Context
	stopWrite context.CancelFunc
	writerWG  sync.WaitGroup
}

// New connects to PostgreSQL (migrating only when configured), Redis and
// agent-api, resolves MITHUB_API_KEY to its tenant, opens the spool and
// binds the HTTP listener. Redis and agent-api being down is logged, not
// fatal: /readyz reports them.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (*App, error) {
	// Only a dev worker accepts the dev bootstrap key as MITHUB_API_KEY.
	st, err := store.Connect(ctx, cfg.DatabaseURL, store.Options{AcceptDevKeys: cfg.Env == config.EnvDev}, 30*time.Second, log)
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
		// Not fatal: /readyz reports it and the client reconnects.
		a.log.Warn("redis not reachable", "err", err)
	}
	a.api = apiclient.New(a.cfg.APIURL, a.cfg.APIKey,
		apiclient.WithUserAgent(userAgent), apiclient.WithRetryPolicy(apiclient.NoRetry()))
	a.work = apiclient.New(a.cfg.APIURL, a.cfg.APIKey, apiclient.WithUserAgent(userAgent),
		apiclient.WithRetryPolicy(apiclient.RetryPolicy{MaxElapsedTime: 5 * time.Second}))
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if err := a.api.Healthz(pctx); err != nil {
		a.log.Warn("agent-api not reachable", "url", a.cfg.APIURL, "err", err)
	}
	if a.tenant, err = a.authenticate(ctx); err != nil {
		return err
	}
	if err := a.wire(); err != nil {
		return err
	}

	a.ln, err = net.Listen("tcp", a.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", a.cfg.HTTPAddr, err)
	}
	a.http = &http.Server{
		Handler:           a.routes(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      20 * time.Second,
		IdleTimeout:       60 * time.Second,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	return nil
}

// authenticate resolves MITHUB_API_KEY to the tenant the worker writes
// under, waiting a little for agent-api's dev bootstrap on a fresh
// database.
func (a *App) authenticate(ctx context.Context) (store.Tenant, error) {
	ctx, cancel := context.WithTimeout(ctx, authWait)
	defer cancel()
	for {
		t, err := a.store.Authenticate(ctx, a.cfg.APIKey)
		if err == nil {
			return t, nil
		}
		if !errors.Is(err, store.ErrUnauthenticated) {
			a.log.Warn("resolve MITHUB_API_KEY", "err", err)
		}
		select {
		case <-ctx.Done():
			return store.Tenant{}, fmt.Errorf("MITHUB_API_KEY: %w", err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// wire builds the ingest path, the room manager and the queue.
func (a *App) wire() error {
	counter, err := tokens.ForModel(a.cfg.LLMModel)
	if err != nil {
		return fmt.Errorf("token counter: %w", err)
	}
	a.spool, err = ingest.OpenSpool(a.cfg.SpoolDir, int64(a.cfg.SpoolMaxBytes))
	if err != nil {
		return fmt.Errorf("MITHUB_WORKER_SPOOL_DIR: %w", err)
	}
	if n := a.spool.Len(); n > 0 {
		a.log.Info("spool holds segments from a previous run", "segments", n, "from_journal", a.spool.Recovered)
	}
	if a.spool.Lost > 0 {
		a.log.Error("spool full: journaled segments of a previous run dropped", "segments", a.spool.Lost)
	}
	a.runCtx, a.stopWork = context.WithCancel(context.Background())
	a.writerCtx, a.stopWrite = context.WithCancel(context.Background())
	a.pinger = ingest.NewPinger(a.runCtx, a.work, a.log)
	a.writer = ingest.NewWriter(a.store, a.spool, a.cfg.BatchMax, a.log,
		func(meetingID string, _ int) { a.pinger.Ping(meetingID) })

	hearing, err := a.hearing()
	if err != nil {
		return err
	}
	a.rooms = room.NewManager(a.runCtx, room.ManagerConfig{
		Deps: room.Deps{
			Settings: room.Settings{
				LiveKitURL: a.cfg.LiveKitURL, APIKey: a.cfg.LiveKitAPIKey, APISecret: a.cfg.LiveKitAPISecret,
				Identity: a.cfg.BotIdentity, Name: a.cfg.BotName, AskTimeout: a.cfg.AskTimeout,
				Wake: wake.Config{Phrases: a.cfg.WakeWords, MaxEdits: a.cfg.WakeMaxEdits,
					FollowUp: a.cfg.WakeFollowUp, Cooldown: a.cfg.WakeCooldown},
				Hearing: hearing,
			},
			Writer: a.writer, API: a.work, Tokens: counter, Log: a.log,
		},
		Meetings: a.store,
		Ender:    ender{a.work},
		Leases:   room.NewRedisLeaser(a.redis, a.cfg.LeasePrefix),
		Owner:    a.cfg.WorkerID,
		TenantID: a.tenant.ID,
	})
	if a.cfg.ReplayFile != "" {
		f, err := os.Open(a.cfg.ReplayFile)
		if err != nil {
			return fmt.Errorf("MITHUB_REPLAY_FILE: %w", err)
		}
		segs, err := transcript.ReadReplay(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("MITHUB_REPLAY_FILE: %w", err)
		}
		a.rooms.SetReplay(a.cfg.ReplayRoom, segs, a.cfg.ReplayRate)
	}

	a.enqueue = asynq.NewClientFromRedisClient(a.redis)
	a.queue = asynq.NewServerFromRedisClient(a.redis, asynq.Config{
		Concurrency:     a.cfg.Concurrency,
		Queues:          map[string]int{a.cfg.Queue: 1},
		ShutdownTimeout: a.cfg.ShutdownTimeout,
		RetryDelayFunc:  tasks.RetryDelay,
		ErrorHandler:    tasks.ErrorHandler(a.log),
		Logger:          tasks.Logger(a.log.With("component", "asynq")),
		LogLevel:        tasks.LogLevel(a.cfg.LogLevel),
	})
	return nil
}

// hearing sets up the bot's own speech-to-text. A default pocketsphinx
// that cannot load is logged and the bot only reads the room's
// transcripts; a provider chosen with MITHUB_STT_PROVIDER must load.
func (a *App) hearing() (room.Hearing, error) {
	c := a.cfg
	h := room.Hearing{Tracks: &a.listening, Mode: c.STTMode, Language: c.STTLanguage, Wait: c.STTWait, VAD: audio.VADConfig{HangoverMS: int(c.STTHangover.Milliseconds())}}
	if c.STTMode == config.STTNever {
		return h, nil
	}
	switch c.STTProvider {
	case config.STTOpenAI:
		retries := c.STTRetries
		if retries == 0 {
			retries = -1 // OpenAIConfig: none
		}
		h.Provider = stt.NewOpenAI(stt.OpenAIConfig{BaseURL: c.STTOpenAIURL, APIKey: c.STTOpenAIKey, Model: c.STTOpenAIModel,
			Timeout: c.STTTimeout, MaxRetries: retries})
	default:
		p, err := stt.NewPocketSphinx(stt.PocketSphinxConfig{ModelDir: c.STTPocketSphinxModel, Words: c.STTPocketSphinxWords, Decoders: c.STTDecoders})
		if err != nil {
			if c.STTProviderSet {
				return h, fmt.Errorf("MITHUB_STT_PROVIDER=pocketsphinx: %w", err)
			}
			a.log.Warn("speech-to-text off: pocketsphinx cannot load; only the room's transcripts are stored (set MITHUB_STT_MODE=never to silence this)", "err", err)
			return h, nil
		}
		h.Provider = p
		if h.Language == "" {
			h.Language = "en"
		}
	}
	a.stt = h.Provider
	a.log.Info("speech-to-text", "mode", h.Mode, "provider", h.Provider.Name(), "language", h.Language)
	return h, nil
}

// ender adapts the API client to room.Ender.
type ender struct{ api *apiclient.Client }

func (e ender) EndMeeting(ctx context.Context, meetingID string) error {
	_, err := e.api.EndMeeting(ctx, meetingID)
	return err
}

func (a *App) routes() http.Handler {
	mux := http.NewServeMux()
	health.Register(mux, a.log, map[string]health.Check{
		"postgres":  a.store.Ping,
		"redis":     func(ctx context.Context) error { return a.redis.Ping(ctx).Err() },
		"agent-api": a.api.Healthz,
	})
	mux.Handle(webhook.Path, webhook.New(a.cfg.LiveKitAPIKey, a.cfg.LiveKitAPISecret, webhookRooms{a}, a.log, webhook.Options{
		MaxAge: a.cfg.WebhookMaxAge, MaxSkew: a.cfg.WebhookMaxSkew,
		Seen: webhook.RedisSeen{Client: a.redis, Prefix: "mithub:rt:webhook:"},
	}))
	return mux
}

// webhookRooms routes room events: the replica that receives room_started
// joins the room itself (the room lease still makes one bot per room), so
// the bot is in the room within the time of one meeting lookup rather than
// after the queue's next poll (Asynq looks at an idle queue about once a
// second, and what participants say before the bot joins is not heard).
// Only when that join fails does the room become a bot:join task, which
// any replica may take. A finished room ends its meeting.
type webhookRooms struct{ a *App }

func (w webhookRooms) Started(ctx context.Context, roomName string) error {
	_, jerr := w.a.rooms.Join(ctx, roomName, "")
	if jerr == nil {
		return nil
	}
	w.a.log.Warn("join from webhook failed, queueing bot:join", "room", roomName, "err", jerr)
	t, err := tasks.NewBotJoinTask(mithubJoin(roomName, w.a.tenant.ID), asynq.Queue(w.a.cfg.Queue))
	if err != nil {
		return err
	}
	if _, err := w.a.enqueue.EnqueueContext(ctx, t); err != nil {
		return errors.Join(jerr, err)
	}
	return nil
}

func (w webhookRooms) Finished(ctx context.Context, roomName string) error {
	return w.a.rooms.Finish(ctx, roomName)
}

// Addr is the address the HTTP server listens on.
func (a *App) Addr() net.Addr { return a.ln.Addr() }

// TenantID is the tenant the worker writes under.
func (a *App) TenantID() string { return a.tenant.ID }

// Rooms lists the rooms the worker is in, with their meeting ids.
func (a *App) Rooms() map[string]string { return a.rooms.Rooms() }

// Join makes the bot join a room (as a bot:join task would).
func (a *App) Join(ctx context.Context, roomName, meetingID string) (string, error) {
	return a.rooms.Join(ctx, roomName, meetingID)
}

// Transcribing says whether the bot decodes a track's audio now.
func (a *App) Transcribing(trackSID string) bool { return a.listening.Has(trackSID) }

// IngestStats are the writer's running totals.
func (a *App) IngestStats() ingest.Stats { return a.writer.Stats() }

// Run serves until ctx is done, then shuts down: stop the HTTP server
// (webhooks) and the queue (no new joins), leave the rooms, write what is
// queued within the shutdown timeout (the rest stays in the spool), wait
// for pings, close Redis and the pool last.
func (a *App) Run(ctx context.Context) error {
	a.writerWG.Go(func() { a.writer.Run(a.writerCtx, a.cfg.ShutdownTimeout) })
	mux := asynq.NewServeMux()
	mux.Handle(tasks.TypeBotJoin, jobs.NewBotJoinHandler(a.rooms, a.tenant.ID))
	if err := a.queue.Start(mux); err != nil {
		a.shutdown()
		return fmt.Errorf("start asynq server: %w", err)
	}
	a.log.Info("realtime-worker listening", "addr", a.ln.Addr().String(), "env", a.cfg.Env,
		"livekit_url", a.cfg.LiveKitURL, "wake_words", a.cfg.WakeWords, "queue", a.cfg.Queue, "tenant", a.tenant.Name)
	errc := make(chan error, 1)
	go func() { errc <- a.http.Serve(a.ln) }()
	rooms := append([]string(nil), a.cfg.Rooms...)
	if a.cfg.ReplayFile != "" {
		rooms = append(rooms, a.cfg.ReplayRoom)
	}
	go a.joinStatic(a.runCtx, rooms)

	var serveErr error
	select {
	case err := <-errc:
		serveErr = fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	a.log.Info("shutting down", "timeout", a.cfg.ShutdownTimeout.String())
	if serveErr == nil {
		sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
		if err := a.http.Shutdown(sctx); err != nil {
			a.log.Warn("http shutdown", "err", err)
		}
		cancel()
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Warn("http server stopped", "err", err)
		}
	}
	a.shutdown()
	if serveErr != nil {
		return serveErr
	}
	a.log.Info("stopped")
	return nil
}

// joinStatic joins the configured rooms, retrying each until it works.
func (a *App) joinStatic(ctx context.Context, rooms []string) {
	for _, r := range rooms {
		for pause := 500 * time.Millisecond; ; pause = min(2*pause, 10*time.Second) {
			_, err := a.rooms.Join(ctx, r, "")
			if err == nil || ctx.Err() != nil {
				break
			}
			a.log.Warn("join configured room", "room", r, "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
		}
	}
}

// shutdown stops intake, then sessions, then the writer and pings.
func (a *App) shutdown() {
	a.queue.Shutdown()
	a.stopWork()
	a.rooms.Wait()
	a.stopWrite()
	a.writerWG.Wait()
	a.pinger.Wait()
	a.close()
}

func (a *App) close() {
	if a.ln != nil {
		_ = a.ln.Close()
	}
	if a.enqueue != nil {
		_ = a.enqueue.Close()
	}
	if a.redis != nil {
		_ = a.redis.Close()
	}
	if a.spool != nil {
		_ = a.spool.Close()
	}
	if a.stt != nil {
		_ = a.stt.Close()
	}
	a.store.Close()
}
