// Package config reads realtime-worker's settings from the environment.
package config

import (
	"errors"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/envconf"
	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/pkg/wakeword"
	"github.com/mithub/mithub/services/realtime-worker/internal/stt"
)

// Environments.
const (
	EnvDev  = "dev"
	EnvProd = "prod"
)

// Dev credentials, used only when MITHUB_ENV=dev: agent-api's bootstrap
// key and livekit-server --dev's key pair.
const (
	DevAPIKey           = "dev-key"
	DevLiveKitAPIKey    = "devkey"
	DevLiveKitAPISecret = "secret"
)

// DefaultWakeWords are matched when MITHUB_WAKE_WORDS is unset.
// Hey/헤이/OK/오케이 in front and 야/아 behind are accepted with each
// (see pkg/wakeword).
var DefaultWakeWords = wakeword.DefaultNames

// Config is realtime-worker's configuration. Each field names its variable
// and default.
type Config struct {
	// Env is MITHUB_ENV, dev or prod (default prod). Dev supplies the dev
	// credentials below; prod requires every credential to be set.
	Env string
	// DatabaseURL is MITHUB_DATABASE_URL
	// (default postgres://postgres@127.0.0.1:5432/mithub?sslmode=disable).
	DatabaseURL string
	// AutoMigrate is MITHUB_AUTO_MIGRATE (default false): agent-api owns
	// the migrations.
	AutoMigrate bool
	// RedisURL is MITHUB_REDIS_URL (default redis://127.0.0.1:6379/0).
	RedisURL string
	// APIURL is MITHUB_API_URL, where agent-api is reached
	// (default http://127.0.0.1:8080).
	APIURL string
	// APIKey is MITHUB_API_KEY, the key sent to agent-api (default dev-key
	// in dev; required in prod).
	APIKey string
	// LiveKitURL is MITHUB_LIVEKIT_URL (default ws://127.0.0.1:7880).
	LiveKitURL string
	// LiveKitAPIKey is MITHUB_LIVEKIT_API_KEY (default devkey in dev;
	// required in prod).
	LiveKitAPIKey string
	// LiveKitAPISecret is MITHUB_LIVEKIT_API_SECRET (default secret in dev;
	// required in prod).
	LiveKitAPISecret string
	// WakeWords is MITHUB_WAKE_WORDS, a comma-separated list of the bot's
	// names (default "미트허브,밋허브,미트 허브,mithub,mit hub"); see
	// pkg/wakeword for how they are matched.
	WakeWords []string
	// HTTPAddr is MITHUB_WORKER_HTTP_ADDR, where /healthz and /readyz are
	// served (default :8090).
	HTTPAddr string
	// LogLevel is MITHUB_LOG_LEVEL: debug, info, warn or error (default info).
	LogLevel slog.Level
	// ShutdownTimeout is MITHUB_SHUTDOWN_TIMEOUT (default 15s): how long
	// in-flight work may take after a stop signal.
	ShutdownTimeout time.Duration

	// Rooms is MITHUB_WORKER_ROOMS, a comma-separated list of LiveKit rooms
	// the bot joins at start (default none).
	Rooms []string
	// BotIdentity is MITHUB_WORKER_IDENTITY, the bot's participant
	// identity (default mithub-bot).
	BotIdentity string
	// BotName is MITHUB_WORKER_NAME, the bot's display name (default MitHub).
	BotName string
	// Queue is MITHUB_WORKER_QUEUE, the Asynq queue of bot:join tasks
	// (default bot).
	Queue string
	// Concurrency is MITHUB_WORKER_CONCURRENCY, bot:join tasks handled at
	// once (default 4).
	Concurrency int
	// LeasePrefix is MITHUB_WORKER_LEASE_PREFIX, the Redis key prefix of
	// the per-room leases that keep replicas from joining a room twice
	// (default mithub:rt:room:).
	LeasePrefix string
	// WebhookMaxAge is MITHUB_WEBHOOK_MAX_AGE (default 5m): LiveKit webhook
	// events created longer ago are refused; an event id is remembered in
	// Redis for WebhookMaxAge+WebhookMaxSkew and a repeat is refused (409).
	WebhookMaxAge time.Duration
	// WebhookMaxSkew is MITHUB_WEBHOOK_MAX_SKEW (default 30s): how far in
	// the future a webhook event's created_at may be.
	WebhookMaxSkew time.Duration
	// WorkerID is MITHUB_WORKER_ID, this replica's owner id in room leases
	// (default the host name). It must stay the same across restarts of a
	// replica, so that a restarted worker takes its rooms back at once
	// instead of waiting for the dead process's leases to expire, and
	// differ between replicas running at the same time.
	WorkerID string
	// SpoolDir is MITHUB_WORKER_SPOOL_DIR, where final segments wait while
	// PostgreSQL is unreachable (default $TMPDIR/mithub-realtime-spool).
	SpoolDir string
	// SpoolMaxBytes is MITHUB_WORKER_SPOOL_MAX_BYTES (default 67108864,
	// 64 MiB); segments beyond it are dropped and logged.
	SpoolMaxBytes int
	// BatchMax is MITHUB_WORKER_BATCH_MAX, the most segments written in one
	// statement (default 200).
	BatchMax int
	// LLMModel is MITHUB_LLM_MODEL (default ""), which picks the tokenizer
	// used to count a segment's tokens, as in agent-api.
	LLMModel string
	// WakeFollowUp is MITHUB_WAKE_FOLLOWUP (default 8s): how long after a
	// bare wake word the speaker's next final segment is the question.
	WakeFollowUp time.Duration
	// WakeCooldown is MITHUB_WAKE_COOLDOWN (default 5s): a speaker's next
	// question this soon after their last is queued until the answers in
	// progress finish (the same question repeated is answered once).
	WakeCooldown time.Duration
	// WakeMaxEdits is MITHUB_WAKE_MAX_EDITS (default 1): the most edits a
	// heard name may differ by; only vowels and same-sounding Korean
	// final consonants are ever edited, names under 4 letters allow none.
	WakeMaxEdits int
	// AskTimeout is MITHUB_WAKE_ASK_TIMEOUT (default 60s): bound on one
	// answer streamed into the room.
	AskTimeout time.Duration
	// ReplayFile is MITHUB_REPLAY_FILE (default none): a JSONL transcript
	// replayed into ReplayRoom as if spoken there, for demos.
	ReplayFile string
	// ReplayRoom is MITHUB_REPLAY_ROOM (default replay).
	ReplayRoom string
	// ReplayRate is MITHUB_REPLAY_RATE (default 1): replay speed; 0 sends
	// every segment at once.
	ReplayRate float64

	// STTMode is MITHUB_STT_MODE (default auto): when the bot transcribes
	// a participant's microphone itself. auto: when no lk.transcription
	// stream for the participant arrived within STTWait, until one does;
	// always: every microphone; never: only the room's transcripts.
	STTMode string
	// STTProvider is MITHUB_STT_PROVIDER, pocketsphinx (default; offline,
	// English only) or openai. STTProviderSet says it was set: a default
	// provider that cannot load (no model installed) is logged and the bot
	// does not transcribe; a chosen one that cannot load stops the start.
	STTProvider    string
	STTProviderSet bool
	// STTLanguage is MITHUB_STT_LANGUAGE, the language hint sent with each
	// utterance (default none; pocketsphinx is always en).
	STTLanguage string
	// STTWait is MITHUB_STT_WAIT (default 3s): auto mode's wait for a
	// transcription stream before transcribing a microphone.
	STTWait time.Duration
	// STTHangover is MITHUB_STT_HANGOVER (default 500ms): the pause that
	// ends an utterance.
	STTHangover time.Duration
	// STTOpenAIURL is MITHUB_STT_OPENAI_BASE_URL (default
	// https://api.openai.com/v1): an OpenAI-compatible server's /v1 URL
	// (OpenAI, Groq, faster-whisper-server, vLLM).
	STTOpenAIURL string
	// STTOpenAIKey is MITHUB_STT_OPENAI_API_KEY (default none).
	STTOpenAIKey string
	// STTOpenAIModel is MITHUB_STT_OPENAI_MODEL (default whisper-1).
	STTOpenAIModel string
	// STTTimeout is MITHUB_STT_TIMEOUT (default 30s): bound on one
	// transcription request; 408, 429, 5xx and timeouts are retried
	// (MITHUB_STT_RETRIES, default 4) with backoff.
	STTTimeout time.Duration
	STTRetries int
	// STTPocketSphinxModel is MITHUB_STT_POCKETSPHINX_MODEL (default
	// /usr/share/pocketsphinx/model/en-us, Debian's pocketsphinx-en-us).
	STTPocketSphinxModel string
	// STTPocketSphinxWords is MITHUB_STT_POCKETSPHINX_WORDS, extra
	// dictionary entries as word:PHONES, comma-separated (default
	// "mithub:M IH T HH AH B").
	STTPocketSphinxWords []string
	// STTDecoders is MITHUB_STT_DECODERS (default the number of CPUs): the
	// most utterances pocketsphinx decodes at once.
	STTDecoders int
}

// Speech-to-text modes and providers.
const (
	STTAuto   = "auto"
	STTAlways = "always"
	STTNever  = "never"

	STTPocketSphinx = "pocketsphinx"
	STTOpenAI       = "openai"
)

// Load reads the configuration from the environment and validates it.
func Load() (Config, error) { return load(envconf.New()) }

// FromMap reads the configuration from m; tests use it.
func FromMap(m map[string]string) (Config, error) { return load(envconf.FromMap(m)) }

func load(r *envconf.Reader) (Config, error) {
	env := r.OneOf("MITHUB_ENV", EnvProd, EnvDev, EnvProd)
	dev := func(v string) string {
		if env == EnvDev {
			return v
		}
		return ""
	}
	c := Config{
		Env:              env,
		DatabaseURL:      r.String("MITHUB_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mithub?sslmode=disable"),
		AutoMigrate:      r.Bool("MITHUB_AUTO_MIGRATE", false),
		RedisURL:         r.String("MITHUB_REDIS_URL", "redis://127.0.0.1:6379/0"),
		APIURL:           r.String("MITHUB_API_URL", "http://127.0.0.1:8080"),
		APIKey:           r.String("MITHUB_API_KEY", dev(DevAPIKey)),
		LiveKitURL:       r.String("MITHUB_LIVEKIT_URL", "ws://127.0.0.1:7880"),
		LiveKitAPIKey:    r.String("MITHUB_LIVEKIT_API_KEY", dev(DevLiveKitAPIKey)),
		LiveKitAPISecret: r.String("MITHUB_LIVEKIT_API_SECRET", dev(DevLiveKitAPISecret)),
		WakeWords:        r.List("MITHUB_WAKE_WORDS", DefaultWakeWords),
		HTTPAddr:         r.String("MITHUB_WORKER_HTTP_ADDR", ":8090"),
		ShutdownTimeout:  r.Duration("MITHUB_SHUTDOWN_TIMEOUT", 15*time.Second),
		Rooms:            r.List("MITHUB_WORKER_ROOMS", nil),
		BotIdentity:      r.String("MITHUB_WORKER_IDENTITY", "mithub-bot"),
		BotName:          r.String("MITHUB_WORKER_NAME", "MitHub"),
		Queue:            r.String("MITHUB_WORKER_QUEUE", "bot"),
		Concurrency:      r.Int("MITHUB_WORKER_CONCURRENCY", 4, 1, 1000),
		LeasePrefix:      r.String("MITHUB_WORKER_LEASE_PREFIX", "mithub:rt:room:"),
		WebhookMaxAge:    r.Duration("MITHUB_WEBHOOK_MAX_AGE", 5*time.Minute),
		WebhookMaxSkew:   r.Duration("MITHUB_WEBHOOK_MAX_SKEW", 30*time.Second),
		WorkerID:         r.String("MITHUB_WORKER_ID", defaultWorkerID()),
		SpoolDir:         r.String("MITHUB_WORKER_SPOOL_DIR", filepath.Join(os.TempDir(), "mithub-realtime-spool")),
		SpoolMaxBytes:    r.Int("MITHUB_WORKER_SPOOL_MAX_BYTES", 64<<20, 4<<10, 1<<40),
		BatchMax:         r.Int("MITHUB_WORKER_BATCH_MAX", 200, 1, 10000),
		LLMModel:         r.String("MITHUB_LLM_MODEL", ""),
		WakeFollowUp:     r.Duration("MITHUB_WAKE_FOLLOWUP", 8*time.Second),
		WakeCooldown:     r.Duration("MITHUB_WAKE_COOLDOWN", 5*time.Second),
		WakeMaxEdits:     r.Int("MITHUB_WAKE_MAX_EDITS", wakeword.DefaultMaxEdits, 0, 5),
		AskTimeout:       r.Duration("MITHUB_WAKE_ASK_TIMEOUT", 60*time.Second),
		ReplayFile:       r.String("MITHUB_REPLAY_FILE", ""),
		ReplayRoom:       r.String("MITHUB_REPLAY_ROOM", "replay"),
		ReplayRate:       r.Float("MITHUB_REPLAY_RATE", 1, 0, 1000),

		STTMode:              r.OneOf("MITHUB_STT_MODE", STTAuto, STTAuto, STTAlways, STTNever),
		STTLanguage:          r.String("MITHUB_STT_LANGUAGE", ""),
		STTWait:              r.Duration("MITHUB_STT_WAIT", 3*time.Second),
		STTHangover:          r.Duration("MITHUB_STT_HANGOVER", 500*time.Millisecond),
		STTOpenAIURL:         r.String("MITHUB_STT_OPENAI_BASE_URL", "https://api.openai.com/v1"),
		STTOpenAIKey:         r.String("MITHUB_STT_OPENAI_API_KEY", ""),
		STTOpenAIModel:       r.String("MITHUB_STT_OPENAI_MODEL", "whisper-1"),
		STTTimeout:           r.Duration("MITHUB_STT_TIMEOUT", 30*time.Second),
		STTRetries:           r.Int("MITHUB_STT_RETRIES", 4, 0, 20),
		STTPocketSphinxModel: r.String("MITHUB_STT_POCKETSPHINX_MODEL", stt.DefaultPocketSphinxModel),
		STTPocketSphinxWords: r.List("MITHUB_STT_POCKETSPHINX_WORDS", stt.DefaultPocketSphinxWords),
		STTDecoders:          r.Int("MITHUB_STT_DECODERS", runtime.NumCPU(), 1, 256),
	}
	c.STTProvider = r.String("MITHUB_STT_PROVIDER", "")
	c.STTProviderSet = c.STTProvider != ""
	switch c.STTProvider {
	case "":
		c.STTProvider = STTPocketSphinx
	case STTPocketSphinx, STTOpenAI:
	default:
		r.Fail("MITHUB_STT_PROVIDER", "%q is not one of pocketsphinx, openai", c.STTProvider)
	}
	if c.STTWait <= 0 {
		r.Fail("MITHUB_STT_WAIT", "must be positive")
	}
	if c.STTTimeout <= 0 {
		r.Fail("MITHUB_STT_TIMEOUT", "must be positive")
	}
	if c.STTHangover < 100*time.Millisecond || c.STTHangover > 10*time.Second {
		r.Fail("MITHUB_STT_HANGOVER", "must be between 100ms and 10s")
	}
	if _, err := stt.ParseWords(c.STTPocketSphinxWords); err != nil {
		r.Fail("MITHUB_STT_POCKETSPHINX_WORDS", "%v", err)
	}
	if c.STTProvider == STTOpenAI {
		checkURL(r, "MITHUB_STT_OPENAI_BASE_URL", c.STTOpenAIURL, "http", "https")
	} else if c.STTMode != STTNever && c.STTLanguage != "" && !strings.EqualFold(c.STTLanguage, "en") {
		r.Fail("MITHUB_STT_LANGUAGE", "%q: pocketsphinx recognises English only; set MITHUB_STT_PROVIDER=openai with a multilingual model", c.STTLanguage)
	}
	for _, v := range []struct{ name, value string }{
		{"MITHUB_API_KEY", c.APIKey},
		{"MITHUB_LIVEKIT_API_KEY", c.LiveKitAPIKey},
		{"MITHUB_LIVEKIT_API_SECRET", c.LiveKitAPISecret},
	} {
		if v.value == "" {
			r.Fail(v.name, "required when MITHUB_ENV=%s", env)
		}
	}
	if env != EnvDev {
		// The dev credentials are public: a prod worker never runs with them.
		if c.APIKey == DevAPIKey {
			r.Fail("MITHUB_API_KEY", "is the dev bootstrap key %q, refused when MITHUB_ENV=%s; create a key with mithubctl apikey create", DevAPIKey, env)
		}
		if c.LiveKitAPIKey == DevLiveKitAPIKey && c.LiveKitAPISecret == DevLiveKitAPISecret {
			r.Fail("MITHUB_LIVEKIT_API_KEY", "%q/%q is livekit-server --dev's key pair, refused when MITHUB_ENV=%s", DevLiveKitAPIKey, DevLiveKitAPISecret, env)
		} else if c.LiveKitAPISecret == DevLiveKitAPISecret {
			r.Fail("MITHUB_LIVEKIT_API_SECRET", "is livekit-server --dev's secret, refused when MITHUB_ENV=%s", env)
		}
	}
	if c.ReplayFile != "" {
		if _, err := os.Stat(c.ReplayFile); err != nil {
			r.Fail("MITHUB_REPLAY_FILE", "%v", err)
		}
	}
	for _, room := range c.Rooms {
		if len(room) > 256 {
			r.Fail("MITHUB_WORKER_ROOMS", "room name %.20q... is longer than 256 bytes", room)
		}
	}
	if c.WorkerID == "" || len(c.WorkerID) > 200 {
		r.Fail("MITHUB_WORKER_ID", "must be 1 to 200 bytes")
	}
	if len(c.WakeWords) == 0 {
		r.Fail("MITHUB_WAKE_WORDS", "needs at least one wake word")
	} else if _, err := wakeword.New(wakeword.Config{Names: c.WakeWords, MaxEdits: c.WakeMaxEdits}); err != nil {
		r.Fail("MITHUB_WAKE_WORDS", "%v", err)
	}
	if _, err := redis.ParseURL(c.RedisURL); err != nil {
		r.Fail("MITHUB_REDIS_URL", "%s", urlProblem(err))
	}
	checkURL(r, "MITHUB_API_URL", c.APIURL, "http", "https")
	checkURL(r, "MITHUB_LIVEKIT_URL", c.LiveKitURL, "ws", "wss", "http", "https")
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

// defaultWorkerID is the host name, which names a replica across its
// restarts (a container's or pod's name).
func defaultWorkerID() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "realtime-worker"
}

// checkURL records an error unless raw is an absolute URL with a host and
// one of schemes.
func checkURL(r *envconf.Reader, name, raw string, schemes ...string) {
	u, err := url.Parse(raw)
	if err != nil {
		r.Fail(name, "%s", urlProblem(err))
		return
	}
	if u.Host == "" {
		r.Fail(name, "needs a host, as in %s://host:port", schemes[0])
		return
	}
	for _, s := range schemes {
		if u.Scheme == s {
			return
		}
	}
	r.Fail(name, "scheme %q is not one of %v", u.Scheme, schemes)
}

// urlProblem describes a URL parse error without quoting the URL, which
// may carry a password.
func urlProblem(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
