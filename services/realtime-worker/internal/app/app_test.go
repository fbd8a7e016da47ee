package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/realtime-worker/internal/app"
	"github.com/mithub/mithub/services/realtime-worker/internal/config"
)

// defaultTestRedisURL keeps tests out of the dev database (0).
const defaultTestRedisURL = "redis://127.0.0.1:6379/15"

func testRedisURL() string {
	if u := os.Getenv("MITHUB_TEST_REDIS_URL"); u != "" {
		return u
	}
	return defaultTestRedisURL
}

// closedURL returns an http URL on which nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr
}

// fakeAgentAPI answers agent-api's /healthz.
func fakeAgentAPI(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"ok"}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func devConfig(t *testing.T, env map[string]string) config.Config {
	t.Helper()
	m := map[string]string{
		"MITHUB_ENV":              "dev",
		"MITHUB_REDIS_URL":        testRedisURL(),
		"MITHUB_WORKER_HTTP_ADDR": "127.0.0.1:0",
		"MITHUB_SHUTDOWN_TIMEOUT": "5s",
		"MITHUB_WORKER_SPOOL_DIR": t.TempDir(),
		"MITHUB_WORKER_QUEUE":     "bot-test-" + t.Name(),
	}
	for k, v := range env {
		m[k] = v
	}
	cfg, err := config.FromMap(m)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// started is an app running in the background.
type started struct {
	app      *app.App
	cancel   context.CancelFunc
	finished chan struct{}
	err      error
}

// start runs the app until the test ends or stop is called.
func start(t *testing.T, cfg config.Config) *started {
	t.Helper()
	log := slog.New(slog.NewTextHandler(testOutput(t), &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		cancel()
		t.Fatalf("app.New: %v", err)
	}
	s := &started{app: a, cancel: cancel, finished: make(chan struct{})}
	go func() {
		s.err = a.Run(ctx)
		close(s.finished)
	}()
	t.Cleanup(func() {
		cancel()
		<-s.finished
	})
	return s
}

// stop cancels Run's context and returns what Run returned.
func (s *started) stop(t *testing.T) error {
	t.Helper()
	s.cancel()
	select {
	case <-s.finished:
		return s.err
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return within 30s of cancel")
		return nil
	}
}

func (s *started) url(path string) string { return "http://" + s.app.Addr().String() + path }

type readyBody struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
	Error  struct {
		Message string `json:"message"`
	} `json:"error"`
}

func get(t *testing.T, url string) (int, readyBody) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	var b readyBody
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("GET %s body %q: %v", url, body, err)
	}
	return resp.StatusCode, b
}

// migratedSchema returns a fresh schema with the tables and agent-api's
// dev key, as agent-api leaves them in dev mode.
func migratedSchema(t *testing.T) (dsn, schema string) {
	t.Helper()
	dsn, schema = storetest.NewSchema(t)
	st, err := store.Open(context.Background(), dsn, store.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := st.PutAPIKey(context.Background(), "dev", "dev bootstrap", config.DevAPIKey); err != nil {
		t.Fatal(err)
	}
	return dsn, schema
}

func TestHealthReadinessAndGracefulShutdown(t *testing.T) {
	dsn, schema := migratedSchema(t)
	api := fakeAgentAPI(t)
	s := start(t, devConfig(t, map[string]string{
		"MITHUB_DATABASE_URL": storetest.URLWithSchema(t, dsn, schema),
		"MITHUB_API_URL":      api.URL,
	}))

	if code, b := get(t, s.url("/healthz")); code != http.StatusOK || b.Status != "ok" {
		t.Errorf("/healthz = %d %+v", code, b)
	}
	code, b := get(t, s.url("/readyz"))
	if code != http.StatusOK || b.Checks["postgres"] != "ok" || b.Checks["redis"] != "ok" || b.Checks["agent-api"] != "ok" {
		t.Errorf("/readyz = %d %+v", code, b)
	}

	api.Close()
	code, b = get(t, s.url("/readyz"))
	if code != http.StatusServiceUnavailable || b.Error.Message != "unavailable: agent-api" {
		t.Errorf("/readyz with agent-api down = %d %+v", code, b)
	}

	if err := s.stop(t); err != nil {
		t.Errorf("Run returned %v after cancel, want nil", err)
	}
	if _, err := http.Get(s.url("/healthz")); err == nil {
		t.Error("HTTP server still answers after shutdown")
	}
}

func TestStartsWhileRedisAndAgentAPIAreDown(t *testing.T) {
	dsn, schema := migratedSchema(t)
	s := start(t, devConfig(t, map[string]string{
		"MITHUB_DATABASE_URL": storetest.URLWithSchema(t, dsn, schema),
		"MITHUB_REDIS_URL":    "redis://127.0.0.1:1/0",
		"MITHUB_API_URL":      closedURL(t),
	}))
	if code, _ := get(t, s.url("/healthz")); code != http.StatusOK {
		t.Errorf("/healthz = %d", code)
	}
	code, b := get(t, s.url("/readyz"))
	if code != http.StatusServiceUnavailable || b.Error.Message != "unavailable: agent-api, redis" || b.Checks["postgres"] != "ok" {
		t.Errorf("/readyz = %d %+v", code, b)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Run returned %v after cancel, want nil", err)
	}
}

// testOutput writes to the test's output until the test ends, then drops
// what is written: the LiveKit SDK keeps logging from goroutines of its
// own (a data packet waiting for a connection) after the app has stopped.
func testOutput(t *testing.T) io.Writer {
	w := &afterTest{w: t.Output()}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return w
}

type afterTest struct {
	mu   sync.Mutex
	w    io.Writer
	done bool
}

func (a *afterTest) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return len(p), nil
	}
	return a.w.Write(p)
}
