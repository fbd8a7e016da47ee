package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/testenv"
)

// redisServer is a private redis-server process, so a test can stop and
// restart it without touching the machine's Redis.
type redisServer struct {
	t    *testing.T
	port int
	cmd  *exec.Cmd
	done chan struct{}
}

// startRedis starts redis-server on a free loopback port without
// persistence; it is stopped when the test ends.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		testenv.Missing(t, "needs redis-server on PATH (scripts/dev-up.sh installs it)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	r := &redisServer{t: t, port: port}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *redisServer) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

func (r *redisServer) start() {
	r.t.Helper()
	var out bytes.Buffer
	r.cmd = exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no")
	r.cmd.Stdout, r.cmd.Stderr = &out, &out
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("start redis-server: %v", err)
	}
	r.done = make(chan struct{})
	go func() {
		_ = r.cmd.Wait()
		close(r.done)
	}()
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.port)})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		select {
		case <-r.done:
			r.t.Fatalf("redis-server exited: %s", out.String())
		default:
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("redis-server on port %d not answering after 10s: %s", r.port, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop terminates the server and waits for it to exit.
func (r *redisServer) stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.done
	}
	r.cmd = nil
}

// restart stops the server and starts an empty one on the same port.
func (r *redisServer) restart() {
	r.t.Helper()
	r.stop()
	r.start()
}

func (r *redisServer) clientOpt(t *testing.T) asynq.RedisConnOpt {
	t.Helper()
	opt, err := asynq.ParseRedisURI(r.url())
	if err != nil {
		t.Fatal(err)
	}
	return opt
}

// seedMeeting stores a meeting of n turns in Korean and English with a
// decision, action items with due dates and an open question.
func seedMeeting(t *testing.T, st *store.Store, tenant string, n int) (store.Tenant, store.Meeting, []store.Transcript) {
	t.Helper()
	ctx := context.Background()
	tn, err := st.EnsureTenant(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.CreateMeeting(ctx, tn.ID, store.NewMeeting{Title: "Release sync 릴리스 회의", Language: "ko"})
	if err != nil {
		t.Fatal(err)
	}
	lines := []struct{ speaker, text string }{
		{"Alice", "Let's review the release plan and the load test results for version two."},
		{"민수", "부하 테스트 결과를 보면 응답 시간이 목표보다 조금 느립니다."},
		{"Bob", "The database connection pool looks like the bottleneck in the load test."},
		{"Alice", "We decided to ship version two on Friday after the load test passes."},
		{"민수", "제가 금요일까지 부하 테스트 보고서를 정리하겠습니다."},
		{"Alice", "Bob, can you send the release notes to the support team by Thursday?"},
		{"Bob", "Sure, I will send them."},
		{"지영", "배포 일정은 다음 주 월요일로 하기로 했습니다."},
		{"Bob", "How are we going to migrate the old customer accounts without downtime?"},
		{"지영", "고객 계정 마이그레이션 방법은 아직 결정되지 않았습니다."},
	}
	us := make([]store.Utterance, n)
	for i := range us {
		l := lines[i%len(lines)]
		us[i] = store.Utterance{
			SegmentID: fmt.Sprintf("seg-%05d", i), SpeakerID: l.speaker, SpeakerName: l.speaker,
			Text: fmt.Sprintf("%s (%d)", l.text, i/len(lines)), StartMS: int64(i) * 4000, EndMS: int64(i)*4000 + 3500,
			Confidence: 1, Tokens: 12,
		}
	}
	var rows []store.Transcript
	for from := 0; from < n; from += 500 {
		res, err := st.Ingest(ctx, tn.ID, m.ID, us[from:min(from+500, n)])
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, res.Inserted...)
	}
	return tn, m, rows
}

// queuePR creates the PR row and enqueues its task, as agent-api does.
func queuePR(t *testing.T, st *store.Store, client *asynq.Client, tn store.Tenant, m store.Meeting, lastID int64, snap *mithubv1.TopicSnapshot) meetingpr.PR {
	t.Helper()
	ctx := context.Background()
	pr, created, err := st.CreatePR(ctx, tn.ID, meetingpr.NewPR{MeetingID: m.ID, Project: "default", LastTranscriptID: lastID})
	if err != nil || !created {
		t.Fatalf("CreatePR = %v, created %v", err, created)
	}
	task, err := tasks.NewPRGenerateTask(&mithubv1.PRGenerateTask{
		MeetingId: m.ID, PrId: pr.ID, TenantId: tn.ID, Snapshot: snap, LastTranscriptId: lastID, RequestedBy: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.EnqueueContext(ctx, task); err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	return pr
}

// waitPR polls the PR until it leaves queued/running or the deadline.
func waitPR(t *testing.T, st *store.Store, tenantID, id string, within time.Duration) meetingpr.PR {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		pr, err := st.GetPR(context.Background(), tenantID, id)
		if err != nil {
			t.Fatalf("GetPR: %v", err)
		}
		if !pr.Open() {
			return pr
		}
		if time.Now().After(deadline) {
			t.Fatalf("PR %s still %s after %v (attempts %d)", id, pr.Status, within, pr.Attempts)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fakeLLM is an OpenAI-compatible chat server. While blocking is set, a
// request is held until the client goes away (or release is called), and
// started receives one value per held request; otherwise it answers with
// a decision and an action item for the first transcript line it is sent.
type fakeLLM struct {
	srv     *httptest.Server
	started chan struct{}

	mu       sync.Mutex
	blocking bool
	release  chan struct{}
	answered int
}

func newFakeLLM(t *testing.T, blocking bool) *fakeLLM {
	t.Helper()
	f := &fakeLLM{started: make(chan struct{}, 16), blocking: blocking, release: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.unblock()
		f.srv.Close()
	})
	return f
}

// unblock answers every later request and lets held ones go.
func (f *fakeLLM) unblock() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.blocking {
		f.blocking = false
		close(f.release)
	}
}

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) < 2 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	blocking, release := f.blocking, f.release
	f.mu.Unlock()
	if blocking {
		f.started <- struct{}{}
		select {
		case <-r.Context().Done():
			return
		case <-release:
		}
	}
	seq := firstSeq(req.Messages[1].Content)
	content := fmt.Sprintf("```json\n{\"decisions\":[{\"text\":\"Ship version two on Friday (part at %d)\",\"speaker\":\"Alice\",\"seq\":%d}],"+
		"\"action_items\":[{\"text\":\"부하 테스트 보고서 정리 (%d)\",\"owner\":\"민수\",\"due\":\"금요일까지\",\"seq\":%d}],"+
		"\"open_questions\":[]}\n```", seq, seq, seq, seq)
	f.mu.Lock()
	f.answered++
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": "test-model",
		"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 50},
	})
}

// firstSeq is the seq of the first "[seq] Speaker: text" line.
func firstSeq(user string) int {
	for _, line := range strings.Split(user, "\n") {
		if strings.HasPrefix(line, "[") {
			if end := strings.IndexByte(line, ']'); end > 0 {
				if n, err := strconv.Atoi(line[1:end]); err == nil {
					return n
				}
			}
		}
	}
	return -1
}
