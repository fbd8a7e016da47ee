package app_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/pr-worker/internal/app"
	"github.com/mithub/mithub/services/pr-worker/internal/config"
	"github.com/mithub/mithub/services/pr-worker/internal/jobs"
)

// defaultTestRedisURL keeps test keys out of the dev database (0).
const defaultTestRedisURL = "redis://127.0.0.1:6379/15"

func testRedisURL() string {
	if u := os.Getenv("MITHUB_TEST_REDIS_URL"); u != "" {
		return u
	}
	return defaultTestRedisURL
}

func randomName(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// started is an app running in the background.
type started struct {
	app      *app.App
	cancel   context.CancelFunc
	finished chan struct{}
	err      error
}

// start runs a with Run until the test ends or stop is called.
func start(t *testing.T, cfg config.Config) *started {
	t.Helper()
	log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
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

func get(t *testing.T, url string) (int, map[string]any) {
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
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("GET %s body %q: %v", url, body, err)
	}
	return resp.StatusCode, v
}

// waitDone polls the task on a ticker until it is completed or archived.
func waitDone(t *testing.T, insp *asynq.Inspector, queue, id string) *asynq.TaskInfo {
	t.Helper()
	deadline := time.After(15 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		info, err := insp.GetTaskInfo(queue, id)
		if err != nil {
			t.Fatalf("get task %s: %v", id, err)
		}
		if info.State == asynq.TaskStateCompleted || info.State == asynq.TaskStateArchived {
			return info
		}
		select {
		case <-deadline:
			t.Fatalf("task %s still %s after 15s", id, info.State)
		case <-tick.C:
		}
	}
}

func TestPingHealthAndGracefulShutdown(t *testing.T) {
	dsn, schema := storetest.NewSchema(t)
	redisURL := testRedisURL()
	cfg, err := config.FromMap(map[string]string{
		"MITHUB_DATABASE_URL":     storetest.URLWithSchema(t, dsn, schema),
		"MITHUB_REDIS_URL":        redisURL,
		"MITHUB_WORKER_HTTP_ADDR": "127.0.0.1:0",
		"MITHUB_SHUTDOWN_TIMEOUT": "5s",
	})
	if err != nil {
		t.Fatal(err)
	}
	// A private queue: no other worker on this Redis takes our task, and
	// this worker takes nobody else's.
	queue := randomName("test_")
	cfg.Queues = map[string]int{queue: 1}

	opt, err := asynq.ParseRedisURI(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	insp := asynq.NewInspector(opt)
	t.Cleanup(func() {
		_ = insp.DeleteQueue(queue, true)
		_ = insp.Close()
	})
	client := asynq.NewClient(opt)
	t.Cleanup(func() { _ = client.Close() })

	s := start(t, cfg)
	ctx := context.Background()

	st, err := store.Open(ctx, dsn, store.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var applied int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&applied); err != nil || applied == 0 {
		t.Fatalf("migrations in schema %s: %d, %v", schema, applied, err)
	}

	nonce := randomName("nonce-")
	task, err := jobs.NewPingTask(nonce)
	if err != nil {
		t.Fatal(err)
	}
	info, err := client.EnqueueContext(ctx, task, asynq.Queue(queue), asynq.Retention(time.Minute))
	if err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	if got := waitDone(t, insp, queue, info.ID); got.State != asynq.TaskStateCompleted || string(got.Result) != nonce {
		t.Errorf("ping: state %s, result %q, error %q; want completed with %q", got.State, got.Result, got.LastErr, nonce)
	}

	// A malformed ping fails without retry and is archived.
	info, err = client.EnqueueContext(ctx, asynq.NewTask(jobs.TypePing, []byte(`{}`)), asynq.Queue(queue), asynq.MaxRetry(3))
	if err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	if got := waitDone(t, insp, queue, info.ID); got.State != asynq.TaskStateArchived || got.LastErr == "" {
		t.Errorf("malformed ping: state %s, error %q; want archived with an error", got.State, got.LastErr)
	}

	base := "http://" + s.app.Addr().String()
	if code, body := get(t, base+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz = %d %v", code, body)
	}
	code, body := get(t, base+"/readyz")
	checks, _ := body["checks"].(map[string]any)
	if code != http.StatusOK || checks["postgres"] != "ok" || checks["redis"] != "ok" {
		t.Errorf("/readyz = %d %v", code, body)
	}

	if err := s.stop(t); err != nil {
		t.Errorf("Run returned %v after cancel, want nil", err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("health server still answers after shutdown")
	}
}
