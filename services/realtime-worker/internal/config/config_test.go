package config_test

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/services/realtime-worker/internal/config"
)

func TestDevDefaults(t *testing.T) {
	c, err := config.FromMap(map[string]string{"MITHUB_ENV": "dev"})
	if err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		t.Fatalf("hostname %q: %v", host, err)
	}
	want := config.Config{
		Env:              config.EnvDev,
		DatabaseURL:      "postgres://postgres@127.0.0.1:5432/mithub?sslmode=disable",
		RedisURL:         "redis://127.0.0.1:6379/0",
		APIURL:           "http://127.0.0.1:8080",
		APIKey:           "dev-key",
		LiveKitURL:       "ws://127.0.0.1:7880",
		LiveKitAPIKey:    "devkey",
		LiveKitAPISecret: "secret",
		WakeWords:        []string{"미트허브", "밋허브", "미트 허브", "mithub", "mit hub"},
		HTTPAddr:         ":8090",
		ShutdownTimeout:  15 * time.Second,
		BotIdentity:      "mithub-bot",
		BotName:          "MitHub",
		Queue:            "bot",
		Concurrency:      4,
		LeasePrefix:      "mithub:rt:room:",
		WebhookMaxAge:    5 * time.Minute,
		WebhookMaxSkew:   30 * time.Second,
		WorkerID:         host,
		SpoolDir:         filepath.Join(os.TempDir(), "mithub-realtime-spool"),
		SpoolMaxBytes:    64 << 20,
		BatchMax:         200,
		WakeFollowUp:     8 * time.Second,
		WakeCooldown:     5 * time.Second,
		WakeMaxEdits:     1,
		AskTimeout:       60 * time.Second,
		ReplayRoom:       "replay",
		ReplayRate:       1,

		STTMode:              config.STTAuto,
		STTProvider:          config.STTPocketSphinx,
		STTWait:              3 * time.Second,
		STTHangover:          500 * time.Millisecond,
		STTOpenAIURL:         "https://api.openai.com/v1",
		STTOpenAIModel:       "whisper-1",
		STTTimeout:           30 * time.Second,
		STTRetries:           4,
		STTPocketSphinxModel: "/usr/share/pocketsphinx/model/en-us",
		STTPocketSphinxWords: []string{"mithub:M IH T HH AH B"},
		STTDecoders:          runtime.NumCPU(),
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", c, want)
	}
}

func TestProdIsTheDefaultAndNeedsCredentials(t *testing.T) {
	_, err := config.FromMap(nil)
	if err == nil {
		t.Fatal("prod without credentials loaded")
	}
	for _, name := range []string{"MITHUB_API_KEY", "MITHUB_LIVEKIT_API_KEY", "MITHUB_LIVEKIT_API_SECRET"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}

func TestProdWithCredentials(t *testing.T) {
	c, err := config.FromMap(map[string]string{
		"MITHUB_API_KEY":            "k1",
		"MITHUB_LIVEKIT_API_KEY":    "lk",
		"MITHUB_LIVEKIT_API_SECRET": "lks",
		"MITHUB_WAKE_WORDS":         " hey bot , ok bot ,",
		"MITHUB_LIVEKIT_URL":        "wss://lk.example.com",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Env != config.EnvProd || c.APIKey != "k1" || c.LiveKitAPIKey != "lk" || c.LiveKitAPISecret != "lks" ||
		!reflect.DeepEqual(c.WakeWords, []string{"hey bot", "ok bot"}) || c.LiveKitURL != "wss://lk.example.com" {
		t.Errorf("config = %+v", c)
	}
}

func TestProdMissingOneCredential(t *testing.T) {
	tests := []struct {
		give map[string]string
		want string
	}{
		{map[string]string{"MITHUB_LIVEKIT_API_KEY": "lk", "MITHUB_LIVEKIT_API_SECRET": "s"}, "MITHUB_API_KEY"},
		{map[string]string{"MITHUB_API_KEY": "k", "MITHUB_LIVEKIT_API_SECRET": "s"}, "MITHUB_LIVEKIT_API_KEY"},
		{map[string]string{"MITHUB_API_KEY": "k", "MITHUB_LIVEKIT_API_KEY": "lk"}, "MITHUB_LIVEKIT_API_SECRET"},
		{map[string]string{"MITHUB_API_KEY": "k", "MITHUB_LIVEKIT_API_KEY": "lk", "MITHUB_LIVEKIT_API_SECRET": " "}, "MITHUB_LIVEKIT_API_SECRET"},
	}
	for _, tt := range tests {
		_, err := config.FromMap(tt.give)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("FromMap(%v) error %v, want it to name %s", tt.give, err, tt.want)
		}
	}
}

// devWith is a dev configuration with one variable set.
func devWith(name, value string) map[string]string {
	return map[string]string{"MITHUB_ENV": "dev", name: value}
}

func TestBadValuesNameTheVariable(t *testing.T) {
	tests := []struct {
		name string
		give string
	}{
		{"MITHUB_ENV", "staging"},
		{"MITHUB_AUTO_MIGRATE", "sometimes"},
		{"MITHUB_REDIS_URL", "http://127.0.0.1:6379"},
		{"MITHUB_REDIS_URL", "redis://127.0.0.1:6379/zero"},
		{"MITHUB_API_URL", "127.0.0.1:8080"},
		{"MITHUB_API_URL", "ftp://127.0.0.1"},
		{"MITHUB_LIVEKIT_URL", "tcp://127.0.0.1:7880"},
		{"MITHUB_LIVEKIT_URL", "ws://[::1"},
		{"MITHUB_WAKE_WORDS", " , ,"},
		{"MITHUB_WORKER_HTTP_ADDR", "8090"},
		{"MITHUB_SHUTDOWN_TIMEOUT", "soon"},
		{"MITHUB_LOG_LEVEL", "loud"},
		{"MITHUB_WORKER_CONCURRENCY", "0"},
		{"MITHUB_WORKER_SPOOL_MAX_BYTES", "lots"},
		{"MITHUB_WORKER_BATCH_MAX", "-1"},
		{"MITHUB_WAKE_FOLLOWUP", "-8s"},
		{"MITHUB_WAKE_COOLDOWN", "later"},
		{"MITHUB_WAKE_MAX_EDITS", "9"},
		{"MITHUB_WAKE_ASK_TIMEOUT", "0s"},
		{"MITHUB_REPLAY_FILE", "/nonexistent/meeting.jsonl"},
		{"MITHUB_REPLAY_RATE", "-1"},
		{"MITHUB_WORKER_ROOMS", strings.Repeat("r", 300)},
		{"MITHUB_WORKER_ID", strings.Repeat("w", 201)},
		{"MITHUB_STT_MODE", "sometimes"},
		{"MITHUB_STT_PROVIDER", "google"},
		{"MITHUB_STT_LANGUAGE", "ko"}, // with the default pocketsphinx
		{"MITHUB_STT_WAIT", "0s"},
		{"MITHUB_STT_HANGOVER", "10ms"},
		{"MITHUB_STT_TIMEOUT", "-1s"},
		{"MITHUB_STT_RETRIES", "-1"},
		{"MITHUB_STT_DECODERS", "0"},
		{"MITHUB_STT_POCKETSPHINX_WORDS", "mithub"},
		{"MITHUB_STT_POCKETSPHINX_WORDS", "mithub:M IH QQ"},
	}
	for _, tt := range tests {
		_, err := config.FromMap(devWith(tt.name, tt.give))
		if err == nil || !strings.Contains(err.Error(), tt.name) {
			t.Errorf("%s=%q: error %v, want it to name %s", tt.name, tt.give, err, tt.name)
		}
	}
}

func TestSTTSettings(t *testing.T) {
	c, err := config.FromMap(map[string]string{
		"MITHUB_ENV": "dev", "MITHUB_STT_MODE": "always", "MITHUB_STT_PROVIDER": "openai", "MITHUB_STT_LANGUAGE": "ko",
		"MITHUB_STT_OPENAI_BASE_URL": "http://127.0.0.1:9000/v1", "MITHUB_STT_RETRIES": "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.STTMode != config.STTAlways || c.STTProvider != config.STTOpenAI || !c.STTProviderSet || c.STTLanguage != "ko" || c.STTRetries != 0 {
		t.Errorf("got %+v", c)
	}
	if _, err := config.FromMap(map[string]string{"MITHUB_ENV": "dev", "MITHUB_STT_PROVIDER": "openai", "MITHUB_STT_OPENAI_BASE_URL": "ftp://x"}); err == nil ||
		!strings.Contains(err.Error(), "MITHUB_STT_OPENAI_BASE_URL") {
		t.Errorf("ftp base URL: %v", err)
	}
}

func TestWorkerSettings(t *testing.T) {
	c, err := config.FromMap(map[string]string{
		"MITHUB_ENV": "dev", "MITHUB_WORKER_ROOMS": " standup, 주간 회의 ,", "MITHUB_WORKER_QUEUE": "bot-test",
		"MITHUB_WAKE_FOLLOWUP": "3s", "MITHUB_REPLAY_RATE": "0", "MITHUB_WORKER_ID": "rtw-0",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Rooms, []string{"standup", "주간 회의"}) || c.Queue != "bot-test" ||
		c.WakeFollowUp != 3*time.Second || c.ReplayRate != 0 || c.WorkerID != "rtw-0" {
		t.Errorf("config = %+v", c)
	}
}

func TestRedisURLErrorHidesPassword(t *testing.T) {
	_, err := config.FromMap(devWith("MITHUB_REDIS_URL", "redis://:hunter2@127.0.0.1:port/0"))
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error %q reveals the password", err)
	}
}

// A prod worker refuses the public dev credentials, naming the variable;
// dev mode keeps them as defaults.
func TestProdRefusesDevCredentials(t *testing.T) {
	good := map[string]string{"MITHUB_API_KEY": "mh_k", "MITHUB_LIVEKIT_API_KEY": "lk", "MITHUB_LIVEKIT_API_SECRET": "lks"}
	with := func(name, value string) map[string]string {
		m := map[string]string{}
		for k, v := range good {
			m[k] = v
		}
		m[name] = value
		return m
	}
	pair := with("MITHUB_LIVEKIT_API_KEY", config.DevLiveKitAPIKey)
	pair["MITHUB_LIVEKIT_API_SECRET"] = config.DevLiveKitAPISecret
	tests := []struct {
		give map[string]string
		want string
	}{
		{with("MITHUB_API_KEY", config.DevAPIKey), "MITHUB_API_KEY"},
		{pair, "MITHUB_LIVEKIT_API_KEY"},
		{with("MITHUB_LIVEKIT_API_SECRET", config.DevLiveKitAPISecret), "MITHUB_LIVEKIT_API_SECRET"},
	}
	for _, tt := range tests {
		_, err := config.FromMap(tt.give)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "refused") {
			t.Errorf("FromMap(%v) error %v, want a refusal naming %s", tt.give, err, tt.want)
		}
		tt.give["MITHUB_ENV"] = "dev"
		if _, err := config.FromMap(tt.give); err != nil {
			t.Errorf("dev mode refused %v: %v", tt.give, err)
		}
	}
	if _, err := config.FromMap(good); err != nil {
		t.Errorf("prod with real credentials: %v", err)
	}
}
