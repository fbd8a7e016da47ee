package convmemory_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/llm/openai"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/tokens"
)

// defaultTestRedisURL keeps test keys out of the dev database (0); every
// test also uses its own queue name and jobs key.
const defaultTestRedisURL = "redis://127.0.0.1:6379/15"

func testRedisURL() string {
	if u := os.Getenv("MITHUB_TEST_REDIS_URL"); u != "" {
		return u
	}
	return defaultTestRedisURL
}

func TestMain(m *testing.M) {
	if os.Getenv("MEMORY_TEST_WORKER") == "1" {
		if err := runWorker(); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func redisClient(t testing.TB) redis.UniversalClient {
	t.Helper()
	opt, err := asynq.ParseRedisURI(testRedisURL())
	if err != nil {
		t.Fatal(err)
	}
	rc := opt.MakeRedisClient().(redis.UniversalClient)
	if err := rc.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis: %v", err)
	}
	t.Cleanup(func() { _ = rc.Close() })
	return rc
}

func uniqueName(prefix string) string {
	return fmt.Sprintf("%s%d", prefix, time.Now().UnixNano())
}

// cleanupQueue removes the test's queue and jobs key.
func cleanupQueue(t *testing.T, rc redis.UniversalClient, queue, jobsKey string) {
	t.Cleanup(func() {
		ins := asynq.NewInspectorFromRedisClient(rc)
		_ = ins.DeleteQueue(queue, true)
		rc.Del(context.Background(), jobsKey)
	})
}

// gauge wraps a summarizer and records the most calls in flight at once.
type gauge struct {
	convmemory.Summarizer
	cur, peak atomic.Int64
	calls     atomic.Int64
}

func (g *gauge) enter() func() {
	g.calls.Add(1)
	n := g.cur.Add(1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			break
		}
	}
	return func() { g.cur.Add(-1) }
}

func (g *gauge) SummarizeChunk(ctx context.Context, turns []convmemory.Turn) (string, error) {
	defer g.enter()()
	return g.Summarizer.SummarizeChunk(ctx, turns)
}

func (g *gauge) MergeSummaries(ctx context.Context, parts []string) (string, error) {
	defer g.enter()()
	return g.Summarizer.MergeSummaries(ctx, parts)
}

func waitDone(t *testing.T, svc *convmemory.Service, q *convmemory.Queue, job convmemory.Job, within time.Duration) convmemory.Plan {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		p, err := svc.Progress(context.Background(), job)
		if err != nil {
			t.Fatal(err)
		}
		_, running, err := q.Running(context.Background(), job.ConversationID)
		if err != nil {
			t.Fatal(err)
		}
		if p.Done && !running {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("compression not done after %s: %+v (job recorded: %v)", within, p, running)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestQueueRunsSummariesAsTasksWithBoundedInFlight(t *testing.T) {
	const inFlight = 3
	g := &gauge{Summarizer: convmemory.NewLocal()}
	f := newFixture(t, g)
	c := f.fillChat(t, 30_000)

	rc := redisClient(t)
	queue, jobsKey := uniqueName("memtest-q-"), uniqueName("memtest:jobs:")
	cleanupQueue(t, rc, queue, jobsKey)
	eng := convmemory.NewEngine(f.st, f.count, g, convmemory.Config{ContextWindow: window, MaxInFlight: inFlight})
	client := asynq.NewClientFromRedisClient(rc)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	q := convmemory.NewQueue(eng, client, rc, convmemory.QueueOptions{JobsKey: jobsKey, QueueName: queue}, log)
	svc := convmemory.NewService(eng, q)

	srv := asynq.NewServerFromRedisClient(rc, asynq.Config{Concurrency: 10, Queues: map[string]int{queue: 1}, TaskCheckInterval: 20 * time.Millisecond,
		LogLevel: asynq.FatalLevel})
	mux := asynq.NewServeMux()
	mux.Handle("memory:summarize", q)
	mux.Handle("memory:merge", q)
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)

	job, err := svc.Compress(context.Background(), f.tenant.ID, c.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, svc, q, job, 2*time.Minute)
	if !p.Fits || len(p.Levels) < 2 {
		t.Fatalf("plan %+v", p)
	}
	if peak := g.peak.Load(); peak > inFlight {
		t.Errorf("%d summaries ran at once, want at most %d", peak, inFlight)
	}
	if int(g.calls.Load()) != p.UnitsPlanned() {
		t.Errorf("%d summarizer calls for %d units", g.calls.Load(), p.UnitsPlanned())
	}
	st, err := svc.Stats(context.Background(), f.tenant.ID, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.LiveTokens > job.TargetTokens {
		t.Errorf("live %d > target %d", st.LiveTokens, job.TargetTokens)
	}
}

// llmServer is an OpenAI-compatible chat server that answers with a short
// summary derived from the prompt, counts requests per prompt, and after
// `open` answers holds every further request until release is called.
type llmServer struct {
	*httptest.Server
	open    int
	gate    chan struct{}
	release func()

	mu       sync.Mutex
	answered map[string]int // prompt hash → answers written
	asked    map[string]int // prompt hash → requests received
	total    int
}

func newLLMServer(t *testing.T, open int) *llmServer {
	s := &llmServer{open: open, gate: make(chan struct{}), answered: map[string]int{}, asked: map[string]int{}}
	var once sync.Once
	s.release = func() { once.Do(func() { close(s.gate) }) }
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() { s.release(); s.Close() })
	return s
}

func (s *llmServer) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) < 2 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	user := req.Messages[len(req.Messages)-1].Content
	sum := sha256.Sum256([]byte(user))
	key := hex.EncodeToString(sum[:8])
	s.mu.Lock()
	s.asked[key]++
	hold := s.total >= s.open
	if !hold {
		s.total++
	}
	s.mu.Unlock()
	if hold {
		select {
		case <-s.gate:
		case <-r.Context().Done():
			return
		}
		s.mu.Lock()
		s.total++
		s.mu.Unlock()
	}
	words := strings.Fields(user)
	answer := "Summary " + key + ": " + strings.Join(words[:min(12, len(words))], " ")
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"model":   "test",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": answer}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": len(words), "completion_tokens": 20},
	})
	s.mu.Lock()
	s.answered[key]++
	s.mu.Unlock()
}

func (s *llmServer) snapshot() (answered map[string]int, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.answered))
	for k, v := range s.answered {
		out[k] = v
	}
	n := 0
	for _, v := range s.asked {
		n += v
	}
	return out, n
}

// runWorker is the child process of the crash test: a memory worker that
// summarises through the OpenAI-compatible server at MEMORY_TEST_LLM and
// runs until killed.
func runWorker() error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	st, err := store.Open(ctx, os.Getenv("MEMORY_TEST_DSN"), store.Options{Schema: os.Getenv("MEMORY_TEST_SCHEMA"), MaxConns: 8})
	if err != nil {
		return err
	}
	defer st.Close()
	count, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		return err
	}
	chat, err := openai.New(openai.Config{BaseURL: os.Getenv("MEMORY_TEST_LLM"), Model: "test", MaxRetries: -1})
	if err != nil {
		return err
	}
	eng := convmemory.NewEngine(st, count, convmemory.Chat{Chat: chat, Model: "test"}, convmemory.Config{ContextWindow: window, MaxInFlight: 4})
	opt, err := asynq.ParseRedisURI(os.Getenv("MEMORY_TEST_REDIS"))
	if err != nil {
		return err
	}
	rc := opt.MakeRedisClient().(redis.UniversalClient)
	defer rc.Close()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	qname := os.Getenv("MEMORY_TEST_QUEUE")
	q := convmemory.NewQueue(eng, asynq.NewClientFromRedisClient(rc), rc, convmemory.QueueOptions{JobsKey: os.Getenv("MEMORY_TEST_JOBS"), QueueName: qname}, log)
	srv := asynq.NewServerFromRedisClient(rc, asynq.Config{Concurrency: 4, Queues: map[string]int{qname: 1}, TaskCheckInterval: 20 * time.Millisecond, LogLevel: asynq.WarnLevel})
	mux := asynq.NewServeMux()
	mux.Handle("memory:summarize", q)
	mux.Handle("memory:merge", q)
	if _, err := q.Resume(ctx); err != nil {
		return err
	}
	if err := srv.Start(mux); err != nil {
		return err
	}
	<-ctx.Done()
	srv.Shutdown()
	return nil
}

func startWorker(t *testing.T, env []string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Env = append(cmd.Env, "MEMORY_TEST_WORKER=1")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd
}

func TestKilledWorkerResumesWithoutRedoingSummaries(t *testing.T) {
	const open = 12 // answers before the server starts holding requests
	dsn, schema := storetest.NewSchema(t)
	st, err := store.Open(context.Background(), dsn, store.Options{Schema: schema, MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	tenant, err := st.EnsureTenant(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	count, _ := tokens.ForEncoding(tokens.CL100K)
	eng := convmemory.NewEngine(st, count, convmemory.NewLocal(), convmemory.Config{ContextWindow: window, MaxInFlight: 4})
	f := &fixture{st: st, tenant: tenant, count: count, eng: eng, svc: convmemory.NewService(eng, convmemory.NewInline(eng))}
	c := f.fillChat(t, 30_000)

	llm := newLLMServer(t, open)
	rc := redisClient(t)
	queue, jobsKey := uniqueName("memtest-crash-"), uniqueName("memtest:crashjobs:")
	cleanupQueue(t, rc, queue, jobsKey)
	env := []string{"MEMORY_TEST_DSN=" + dsn, "MEMORY_TEST_SCHEMA=" + schema, "MEMORY_TEST_LLM=" + llm.URL + "/v1",
		"MEMORY_TEST_REDIS=" + testRedisURL(), "MEMORY_TEST_QUEUE=" + queue, "MEMORY_TEST_JOBS=" + jobsKey}
	first := startWorker(t, env)

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	q := convmemory.NewQueue(eng, asynq.NewClientFromRedisClient(rc), rc, convmemory.QueueOptions{JobsKey: jobsKey, QueueName: queue}, log)
	svc := convmemory.NewService(eng, q)
	job, err := svc.Compress(context.Background(), tenant.ID, c.ID, 0)
	if err != nil {
		t.Fatal(err)
	}

	// Wait until the first `open` summaries are stored and the worker's
	// other calls are held by the server, then kill it.
	deadline := time.Now().Add(time.Minute)
	var before []conversation.NodeRef
	for {
		before, err = st.NodeRefs(context.Background(), tenant.ID, c.ID, 1, 100)
		if err != nil {
			t.Fatal(err)
		}
		answered, asked := llm.snapshot()
		if len(before) == open && asked > open {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker stored %d nodes, server asked %d times (answers per prompt: %v); want %d stored and more asked", len(before), asked, answered, open)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	doneBefore, _ := llm.snapshot()
	llm.release()

	startWorker(t, env)
	p := waitDone(t, svc, q, job, 3*time.Minute)
	if !p.Fits {
		t.Fatalf("plan %+v", p)
	}
	answered, asked := llm.snapshot()
	for key, n := range doneBefore {
		if answered[key] != n {
			t.Errorf("prompt %s answered %d times before the kill and %d in all: redone after the restart", key, n, answered[key])
		}
	}
	after, err := st.NodeRefs(context.Background(), tenant.ID, c.ID, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int64]bool{}
	for _, r := range after {
		ids[r.ID] = true
	}
	for _, r := range before {
		if !ids[r.ID] {
			t.Errorf("node %d/%d stored before the kill was replaced", r.Level, r.Seq)
		}
	}
	// Only the calls cut off by the kill may be asked twice.
	if extra := asked - p.UnitsPlanned(); extra < 0 || extra > 4 {
		t.Errorf("server asked %d times for %d units: %d extra, want 0..4 (the calls in flight at the kill)", asked, p.UnitsPlanned(), extra)
	}
}
