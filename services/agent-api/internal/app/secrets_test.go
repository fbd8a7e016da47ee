package app_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/lifecycle"
	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/syncbuf"
	"github.com/mithub/mithub/services/agent-api/internal/app"
	"github.com/mithub/mithub/services/agent-api/internal/config"
)

// Secrets the start-up must never log.
const (
	dbPassword    = "pg-S3cret-pw"
	redisPassword = "redis-S3cret-pw"
	llmAPIKey     = "sk-S3cret-llm-key"
	embedAPIKey   = "emb-S3cret-key"
)

func withPassword(t *testing.T, dsn, password string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), password)
	return u.String()
}

// closedAddr is a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

func assertNoSecrets(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range []string{dbPassword, redisPassword, llmAPIKey, embedAPIKey} {
		if strings.Contains(out, s) {
			t.Errorf("%s leaks %q:\n%s", what, s, out)
		}
	}
}

// TestStartupLogsRedactSecrets starts agent-api with a database password
// (trust authentication ignores it), a Redis URL with a password on a port
// where nothing listens (which is logged), and LLM and embedding API keys,
// runs it until it listens, stops it, and checks that no line of the log
// holds a secret.
func TestStartupLogsRedactSecrets(t *testing.T) {
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "not used at start", http.StatusNotFound)
	}))
	t.Cleanup(llm.Close)
	dsn, schema := storetest.NewSchema(t)
	cfg, err := config.FromMap(map[string]string{
		"MITHUB_DATABASE_URL":     withPassword(t, storetest.URLWithSchema(t, dsn, schema), dbPassword),
		"MITHUB_REDIS_URL":        "redis://:" + redisPassword + "@" + closedAddr(t) + "/12",
		"MITHUB_HTTP_ADDR":        "127.0.0.1:0",
		"MITHUB_LLM_PROVIDER":     "openai",
		"MITHUB_LLM_BASE_URL":     llm.URL + "/v1",
		"MITHUB_LLM_API_KEY":      llmAPIKey,
		"MITHUB_LLM_MODEL":        "gpt-4o-mini",
		"MITHUB_EMBED_PROVIDER":   "openai",
		"MITHUB_EMBED_MODEL":      "bge-m3",
		"MITHUB_EMBED_API_KEY":    embedAPIKey,
		"MITHUB_LOG_LEVEL":        "debug",
		"MITHUB_SHUTDOWN_TIMEOUT": "5s",
	})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	log := logging.New(logs, cfg.LogLevel, "agent-api")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		t.Fatalf("app.New: %s", lifecycle.ExitMessage("agent-api", err))
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(logs.String(), "agent-api listening"); {
		if time.Now().After(deadline) {
			t.Fatalf("agent-api did not start listening:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	out := logs.String()
	for _, want := range []string{"redis not reachable", "topic vectors", "agent-api listening", "stopped"} {
		if !strings.Contains(out, want) {
			t.Errorf("start-up log has no %q line:\n%s", want, out)
		}
	}
	assertNoSecrets(t, "start-up log", out)
}

// TestStartupErrorsRedactSecrets checks the errors a misconfigured start
// ends with, as the process prints them.
func TestStartupErrorsRedactSecrets(t *testing.T) {
	dsn, schema := storetest.NewSchema(t)
	tests := []struct {
		name string
		give map[string]string
	}{
		{"unparsable redis url", map[string]string{
			"MITHUB_DATABASE_URL": withPassword(t, storetest.URLWithSchema(t, dsn, schema), dbPassword),
			"MITHUB_REDIS_URL":    "redis://:" + redisPassword + "@127.0.0.1:badport/0",
		}},
		{"unparsable database url", map[string]string{
			"MITHUB_DATABASE_URL": "postgres://postgres:" + dbPassword + "@127.0.0.1:5432/x?sslmode=%zz",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.give["MITHUB_HTTP_ADDR"] = "127.0.0.1:0"
			cfg, err := config.FromMap(tt.give)
			if err != nil {
				t.Fatal(err)
			}
			logs := &syncbuf.Buffer{}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			a, err := app.New(ctx, cfg, logging.New(logs, cfg.LogLevel, "agent-api"))
			if err == nil {
				a.Handler().Shutdown()
				t.Fatal("app.New succeeded")
			}
			assertNoSecrets(t, "exit message", lifecycle.ExitMessage("agent-api", err))
			assertNoSecrets(t, "log", logs.String())
		})
	}
}
