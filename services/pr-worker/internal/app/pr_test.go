package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"google.golang.org/protobuf/proto"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/services/pr-worker/internal/config"
)

// workerConfig is a worker on the test's schema and Redis; extra
// overrides variables.
func workerConfig(t *testing.T, dsn, schema, redisURL string, extra map[string]string) config.Config {
	t.Helper()
	env := map[string]string{
		"MITHUB_DATABASE_URL":     storetest.URLWithSchema(t, dsn, schema),
		"MITHUB_REDIS_URL":        redisURL,
		"MITHUB_WORKER_HTTP_ADDR": "127.0.0.1:0",
		"MITHUB_SHUTDOWN_TIMEOUT": "5s",
	}
	for k, v := range extra {
		env[k] = v
	}
	cfg, err := config.FromMap(env)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func openStore(t *testing.T, dsn, schema string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dsn, store.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st
}

// nextWeekday is the first day after from that falls on w, as YYYY-MM-DD.
func nextWeekday(from time.Time, w time.Weekday) string {
	d := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, time.UTC)
	for i := 1; i <= 7; i++ {
		if n := d.AddDate(0, 0, i); n.Weekday() == w {
			return n.Format("2006-01-02")
		}
	}
	return ""
}

func decodeDoc(t *testing.T, pr meetingpr.PR) prdoc.Document {
	t.Helper()
	var d prdoc.Document
	for _, f := range []struct {
		raw json.RawMessage
		v   any
	}{{pr.Agenda, &d.Agenda}, {pr.Decisions, &d.Decisions}, {pr.ActionItems, &d.ActionItems},
		{pr.OpenQuestions, &d.OpenQuestions}, {pr.MemoryUpdates, &d.MemoryUpdates}} {
		if err := json.Unmarshal(f.raw, f.v); err != nil {
			t.Fatalf("decode PR column %s: %v", f.raw, err)
		}
	}
	return d
}

// checkCovers asserts that the agenda covers seqs 0..last without gaps.
func checkCovers(t *testing.T, agenda []prdoc.AgendaItem, last int) {
	t.Helper()
	next := 0
	for _, a := range agenda {
		if a.StartSeq != next || a.EndSeq < a.StartSeq {
			t.Fatalf("agenda item %q covers %d-%d, want it to start at %d", a.Title, a.StartSeq, a.EndSeq, next)
		}
		next = a.EndSeq + 1
	}
	if next != last+1 {
		t.Fatalf("agenda ends at %d, want %d", next-1, last)
	}
}

// enqueue → worker → PR succeeded, with the local provider: the agenda
// starts from the snapshot's topics and covers every turn up to
// last_transcript_id; items come from the cue rules; later turns are left
// out; the PR document is the task's result.
func TestPRGenerateLocalEndToEnd(t *testing.T) {
	rs := startRedis(t)
	dsn, schema := storetest.NewSchema(t)
	st := openStore(t, dsn, schema)
	tn, m, rows := seedMeeting(t, st, "acme", 60)
	start(t, workerConfig(t, dsn, schema, rs.url(), nil))

	client := asynq.NewClient(rs.clientOpt(t))
	t.Cleanup(func() { _ = client.Close() })
	const lastSeq = 49
	snap := &mithubv1.TopicSnapshot{CursorSeq: 29, Topics: []*mithubv1.Topic{{
		Id: "7d3f9a10-2b4c-4d5e-8f60-718293a4b5c6", Title: "Release plan", Summary: "Ship after the load test.",
		Keywords: []string{"release", "load test"}, StartSeq: 0, EndSeq: 29,
	}}}
	pr := queuePR(t, st, client, tn, m, rows[lastSeq].ID, snap)

	got := waitPR(t, st, tn.ID, pr.ID, 30*time.Second)
	if got.Status != meetingpr.Succeeded || got.Attempts != 1 || got.Error != "" {
		t.Fatalf("PR = %s, attempts %d, error %q; want succeeded on the first attempt", got.Status, got.Attempts, got.Error)
	}
	d := decodeDoc(t, got)
	checkCovers(t, d.Agenda, lastSeq)
	if d.Agenda[0].TopicID != snap.Topics[0].Id || d.Agenda[0].Title != "Release plan" {
		t.Errorf("first agenda item = %+v, want the snapshot's topic", d.Agenda[0])
	}
	var decided, report, notes bool
	for _, x := range d.Decisions {
		decided = decided || strings.Contains(x.Text, "We decided to ship version two") && x.Speaker == "Alice"
	}
	for _, a := range d.ActionItems {
		if strings.Contains(a.Text, "부하 테스트 보고서") {
			report = a.Owner == "민수" && a.DueDate == nextWeekday(m.StartedAt, time.Friday)
		}
		if strings.Contains(a.Text, "send the release notes") {
			notes = a.Owner == "Bob" && a.DueDate == nextWeekday(m.StartedAt, time.Thursday)
		}
	}
	if !decided || !report || !notes {
		t.Errorf("decision found %v, 민수's report %v, Bob's notes %v:\ndecisions %+v\nactions %+v", decided, report, notes, d.Decisions, d.ActionItems)
	}
	if len(d.OpenQuestions) == 0 {
		t.Error("no open questions, want the migration question")
	}
	for _, x := range d.Decisions {
		if x.Seq > lastSeq {
			t.Errorf("decision from seq %d, after last_transcript_id", x.Seq)
		}
	}
	if !slices.ContainsFunc(d.MemoryUpdates, func(u prdoc.MemoryUpdate) bool { return u.Category == membank.CategoryDecisions }) {
		t.Errorf("memory updates %+v propose no decisions", d.MemoryUpdates)
	}
	for _, h := range []string{"## Agenda", "## Decisions", "## Action items", "## Open questions", "민수"} {
		if !strings.Contains(got.Markdown, h) {
			t.Errorf("markdown lacks %q", h)
		}
	}

	// The document is also the task's result.
	insp := asynq.NewInspector(rs.clientOpt(t))
	t.Cleanup(func() { _ = insp.Close() })
	info, err := insp.GetTaskInfo(tasks.QueuePR, pr.ID)
	if err != nil {
		t.Fatal(err)
	}
	var wire mithubv1.PRDocument
	if err := proto.Unmarshal(info.Result, &wire); err != nil || wire.GetPrId() != pr.ID || len(wire.GetDecisions()) != len(d.Decisions) {
		t.Errorf("task result = %v (%v), want the PR document", &wire, err)
	}
	// Enqueueing the same PR again is refused by its task id.
	task, err := tasks.NewPRGenerateTask(&mithubv1.PRGenerateTask{MeetingId: m.ID, PrId: pr.ID, TenantId: tn.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Enqueue(task); !errors.Is(err, asynq.ErrTaskIDConflict) {
		t.Errorf("second enqueue = %v, want ErrTaskIDConflict", err)
	}
}

// A task for an unknown PR or with a broken payload is archived at once.
func TestPRGeneratePermanentErrorsAreNotRetried(t *testing.T) {
	rs := startRedis(t)
	dsn, schema := storetest.NewSchema(t)
	st := openStore(t, dsn, schema)
	tn, m, _ := seedMeeting(t, st, "acme", 5)
	start(t, workerConfig(t, dsn, schema, rs.url(), nil))
	client := asynq.NewClient(rs.clientOpt(t))
	t.Cleanup(func() { _ = client.Close() })
	insp := asynq.NewInspector(rs.clientOpt(t))
	t.Cleanup(func() { _ = insp.Close() })

	unknown, err := tasks.NewPRGenerateTask(&mithubv1.PRGenerateTask{
		MeetingId: m.ID, TenantId: tn.ID, PrId: "00000000-0000-4000-8000-000000000001",
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		give *asynq.Task
	}{
		{"unknown PR", unknown},
		{"garbage payload", asynq.NewTask(tasks.TypePRGenerate, []byte{0xff, 0x01}, asynq.Queue(tasks.QueuePR), asynq.MaxRetry(5))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := client.Enqueue(tt.give)
			if err != nil {
				t.Fatal(err)
			}
			got := waitDone(t, insp, tasks.QueuePR, info.ID)
			if got.State != asynq.TaskStateArchived || got.Retried != 0 {
				t.Errorf("task %s retried %d times, want archived without retry", got.State, got.Retried)
			}
		})
	}
}

// Redis restarted (emptied) while the worker idles: the next PR still
// completes.
func TestPRGenerateAfterRedisRestart(t *testing.T) {
	rs := startRedis(t)
	dsn, schema := storetest.NewSchema(t)
	st := openStore(t, dsn, schema)
	tn, m, rows := seedMeeting(t, st, "acme", 30)
	start(t, workerConfig(t, dsn, schema, rs.url(), nil))

	client := asynq.NewClient(rs.clientOpt(t))
	t.Cleanup(func() { _ = client.Close() })
	first := queuePR(t, st, client, tn, m, rows[len(rows)-1].ID, nil)
	if got := waitPR(t, st, tn.ID, first.ID, 30*time.Second); got.Status != meetingpr.Succeeded {
		t.Fatalf("first PR = %s %q", got.Status, got.Error)
	}

	rs.restart()

	second := queuePR(t, st, client, tn, m, rows[len(rows)-1].ID, nil)
	got := waitPR(t, st, tn.ID, second.ID, 60*time.Second)
	if got.Status != meetingpr.Succeeded || len(decodeDoc(t, got).Decisions) == 0 {
		t.Fatalf("PR after the Redis restart = %s %q", got.Status, got.Error)
	}
}

// Shutdown while a PR is being built (the model is slow): the worker
// stops within its shutdown timeout, asynq puts the task back in its
// queue, and the next worker builds the PR.
func TestShutdownRequeuesInFlightPR(t *testing.T) {
	rs := startRedis(t)
	dsn, schema := storetest.NewSchema(t)
	st := openStore(t, dsn, schema)
	tn, m, rows := seedMeeting(t, st, "acme", 40)
	llm := newFakeLLM(t, true)
	cfg := workerConfig(t, dsn, schema, rs.url(), map[string]string{
		"MITHUB_LLM_PROVIDER": "openai", "MITHUB_LLM_BASE_URL": llm.srv.URL + "/v1", "MITHUB_LLM_MODEL": "test-model",
		"MITHUB_SHUTDOWN_TIMEOUT": "1s",
	})
	w := start(t, cfg)
	client := asynq.NewClient(rs.clientOpt(t))
	t.Cleanup(func() { _ = client.Close() })
	pr := queuePR(t, st, client, tn, m, rows[len(rows)-1].ID, nil)

	select {
	case <-llm.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the worker never asked the model")
	}
	if err := w.stop(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	insp := asynq.NewInspector(rs.clientOpt(t))
	t.Cleanup(func() { _ = insp.Close() })
	info, err := insp.GetTaskInfo(tasks.QueuePR, pr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if info.State != asynq.TaskStatePending {
		t.Fatalf("task after shutdown is %s, want pending (requeued)", info.State)
	}
	if cur, _ := st.GetPR(context.Background(), tn.ID, pr.ID); !cur.Open() {
		t.Fatalf("PR after shutdown is %s, want still open", cur.Status)
	}

	llm.unblock()
	start(t, cfg)
	got := waitPR(t, st, tn.ID, pr.ID, 60*time.Second)
	if got.Status != meetingpr.Succeeded || got.Attempts != 2 {
		t.Fatalf("PR = %s after %d attempts (%q), want succeeded on the second", got.Status, got.Attempts, got.Error)
	}
	d := decodeDoc(t, got)
	if len(d.Decisions) == 0 || !strings.Contains(d.Decisions[0].Text, "Ship version two") || d.ActionItems[0].Owner != "민수" {
		t.Errorf("document = %+v, want the model's items", d)
	}
}
