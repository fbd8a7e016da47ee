package app_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/syncbuf"
	"github.com/mithub/mithub/pkg/tasks"
)

// buildWorker compiles the pr-worker binary into a temporary directory.
func buildWorker(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pr-worker")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/mithub/mithub/services/pr-worker/cmd/pr-worker")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build pr-worker: %v\n%s", err, out)
	}
	return bin
}

// worker is a pr-worker process.
type worker struct {
	cmd  *exec.Cmd
	out  *syncbuf.Buffer
	done chan struct{}
}

func startWorker(t *testing.T, bin string, env map[string]string) *worker {
	t.Helper()
	w := &worker{cmd: exec.Command(bin), out: &syncbuf.Buffer{}, done: make(chan struct{})}
	w.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		w.cmd.Env = append(w.cmd.Env, k+"="+v)
	}
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	if err := w.cmd.Start(); err != nil {
		t.Fatalf("start pr-worker: %v", err)
	}
	go func() {
		_ = w.cmd.Wait()
		close(w.done)
	}()
	t.Cleanup(func() {
		_ = w.cmd.Process.Kill()
		<-w.done
		if t.Failed() {
			t.Logf("pr-worker %d output:\n%s", w.cmd.Process.Pid, w.out.String())
		}
	})
	return w
}

// The worker process is killed with SIGKILL while it builds a PR (its
// model request is in flight). asynq hands the task to the next worker
// once the dead one's lease has expired; that worker builds the PR again
// and upserts it: exactly one PR row, with the whole document.
func TestWorkerKilledMidTaskRetriesToOnePR(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for asynq's lease expiry (about a minute)")
	}
	rs := startRedis(t)
	dsn, schema := storetest.NewSchema(t)
	st := openStore(t, dsn, schema)
	tn, m, rows := seedMeeting(t, st, "acme", 40)
	llm := newFakeLLM(t, true)
	bin := buildWorker(t)
	env := map[string]string{
		"MITHUB_DATABASE_URL":     storetest.URLWithSchema(t, dsn, schema),
		"MITHUB_REDIS_URL":        rs.url(),
		"MITHUB_WORKER_HTTP_ADDR": "127.0.0.1:0",
		"MITHUB_LLM_PROVIDER":     "openai",
		"MITHUB_LLM_BASE_URL":     llm.srv.URL + "/v1",
		"MITHUB_LLM_MODEL":        "test-model",
		"MITHUB_LOG_LEVEL":        "debug",
	}

	first := startWorker(t, bin, env)
	client := asynq.NewClient(rs.clientOpt(t))
	t.Cleanup(func() { _ = client.Close() })
	pr := queuePR(t, st, client, tn, m, rows[len(rows)-1].ID, nil)

	select {
	case <-llm.started:
	case <-time.After(60 * time.Second):
		t.Fatalf("the worker never asked the model; output:\n%s", first.out.String())
	}
	if cur, err := st.GetPR(context.Background(), tn.ID, pr.ID); err != nil || cur.Status != meetingpr.Running {
		t.Fatalf("PR while the model is asked = %s %v, want running", cur.Status, err)
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-first.done
	llm.unblock()

	second := startWorker(t, bin, env)
	got := waitPR(t, st, tn.ID, pr.ID, 4*time.Minute)
	if got.Status != meetingpr.Succeeded || got.Attempts != 2 {
		t.Fatalf("PR = %s after %d attempts (%q), want succeeded on the second", got.Status, got.Attempts, got.Error)
	}
	var n int
	if err := st.Pool().QueryRow(context.Background(),
		`SELECT count(*) FROM pull_requests WHERE meeting_id = $1`, m.ID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("pull_requests rows for the meeting = %d (%v), want 1", n, err)
	}
	d := decodeDoc(t, got)
	checkCovers(t, d.Agenda, len(rows)-1)
	if len(d.Decisions) == 0 || !strings.Contains(d.Decisions[0].Text, "Ship version two") {
		t.Errorf("decisions = %+v, want the model's", d.Decisions)
	}
	if len(d.ActionItems) == 0 || d.ActionItems[0].Owner != "민수" || d.ActionItems[0].DueDate == "" {
		t.Errorf("action items = %+v, want 민수's with a resolved due date", d.ActionItems)
	}
	for _, h := range []string{"## Agenda", "## Decisions", "## Action items", "## Open questions"} {
		if !strings.Contains(got.Markdown, h) {
			t.Errorf("markdown lacks %q", h)
		}
	}
	insp := asynq.NewInspector(rs.clientOpt(t))
	t.Cleanup(func() { _ = insp.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := insp.GetTaskInfo(tasks.QueuePR, pr.ID)
		if err != nil {
			t.Fatal(err)
		}
		if info.State == asynq.TaskStateCompleted {
			if info.Retried != 1 {
				t.Errorf("task retried %d times, want 1 (the killed attempt)", info.Retried)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task is %s, want completed", info.State)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// The surviving worker stops cleanly on SIGTERM.
	if err := second.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-second.done:
		if code := second.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("pr-worker exited with %d after SIGTERM", code)
		}
	case <-time.After(30 * time.Second):
		t.Error("pr-worker did not stop within 30s of SIGTERM")
	}
}
