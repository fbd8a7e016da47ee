package httpapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/health"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/testenv"
	"github.com/mithub/mithub/pkg/tokens"
	"github.com/mithub/mithub/pkg/webhook"
	"github.com/mithub/mithub/services/agent-api/internal/httpapi"
	"github.com/mithub/mithub/services/agent-api/internal/meetingcache"
	"github.com/mithub/mithub/services/agent-api/internal/prs"
)

// privateRedis is a redis-server process of the test's own, so the test
// can stop it and no other package sees its queues.
type privateRedis struct {
	t    *testing.T
	port int
	cmd  *exec.Cmd
	done chan struct{}
}

func startPrivateRedis(t *testing.T) *privateRedis {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		testenv.Missing(t, "needs redis-server on PATH (scripts/dev-up.sh installs it)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &privateRedis{t: t, port: ln.Addr().(*net.TCPAddr).Port}
	_ = ln.Close()
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *privateRedis) addr() string { return fmt.Sprintf("127.0.0.1:%d", r.port) }

func (r *privateRedis) start() {
	r.t.Helper()
	var out bytes.Buffer
	r.cmd = exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	r.cmd.Stdout, r.cmd.Stderr = &out, &out
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.done = make(chan struct{})
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	c := redis.NewClient(&redis.Options{Addr: r.addr()})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			r.t.Fatalf("redis-server not answering: %s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *privateRedis) stop() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	<-r.done
	r.cmd = nil
}

// prHarness is a server with the PR routes wired to a private Redis.
type prHarness struct {
	*harness
	redis *privateRedis
	insp  *asynq.Inspector
}

func newPRHarness(t *testing.T) *prHarness {
	t.Helper()
	rs := startPrivateRedis(t)
	st := storetest.New(t)
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	eng := newEngine(t, st)
	cache := meetingcache.New(st, meetingctx.Config{}, eng, 100, time.Hour, meetingcache.Observer{})
	opt := asynq.RedisClientOpt{Addr: rs.addr()}
	client := asynq.NewClient(opt)
	insp := asynq.NewInspector(opt)
	t.Cleanup(func() { _ = client.Close(); _ = insp.Close() })
	d := httpapi.Deps{
		Log:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Store: st, Contexts: cache, Metrics: httpapi.NewMetrics(reg), Registry: reg,
		BodyLimit: 1 << 20, L1Wait: 5 * time.Second,
		Ready:      map[string]health.Check{"postgres": st.Ping},
		MemoryBank: st,
		Webhooks:   st, WebhookConfig: webhook.Config{AllowPrivate: true, Timeout: time.Second, SecretGrace: time.Hour},
	}
	wireUseCases(&d, useCaseDeps{store: st, engine: eng, queue: client, counter: counter})
	app := httpapi.New(d)
	h := &harness{t: t, app: app, base: serve(t, app), store: st, cache: cache}
	return &prHarness{harness: h, redis: rs, insp: insp}
}

// meetingLines are turns with a decision, an action item with a due date
// and an open question, in Korean and English.
func meetingLines(prefix string, n int) []utterance {
	lines := []struct{ who, text string }{
		{"Alice", "Let's go over the launch checklist for the mobile app."},
		{"민수", "앱 심사 제출 서류는 거의 준비되었습니다."},
		{"Alice", "We decided to launch the mobile app on the first of next month."},
		{"민수", "제가 금요일까지 스토어 설명 문구를 정리하겠습니다."},
		{"Bob", "Who is going to answer the support tickets during the launch week?"},
	}
	out := make([]utterance, n)
	for i := range out {
		l := lines[i%len(lines)]
		out[i] = utterance{SegmentID: fmt.Sprintf("%s-%04d", prefix, i), SpeakerID: l.who, SpeakerName: l.who,
			Text: l.text, StartMS: int64(i) * 5000, EndMS: int64(i)*5000 + 4000, Confidence: 1}
	}
	return out
}

func (h *prHarness) meetingIn(key, project string) meeting {
	h.t.Helper()
	body := map[string]any{"title": "Launch review 출시 점검", "language": "ko"}
	if project != "" {
		body["metadata"] = map[string]any{"project": project}
	}
	r := h.json(http.MethodPost, "/v1/meetings", key, body)
	if r.status != http.StatusCreated {
		h.t.Fatalf("create meeting: %d %s", r.status, r.body)
	}
	var m meeting
	r.decode(h.t, &m)
	return m
}

type prAccepted struct {
	PRID   string `json:"pr_id"`
	Status string `json:"status"`
}

func (h *prHarness) generate(key, meetingID, query string, body any) (response, prAccepted) {
	h.t.Helper()
	var r response
	if body == nil {
		r = h.do(http.MethodPost, "/v1/meetings/"+meetingID+"/generate-pr"+query, key, nil)
	} else {
		r = h.json(http.MethodPost, "/v1/meetings/"+meetingID+"/generate-pr"+query, key, body)
	}
	var a prAccepted
	if r.status == http.StatusAccepted {
		r.decode(h.t, &a)
	}
	return r, a
}

type prBody struct {
	ID               string               `json:"id"`
	MeetingID        string               `json:"meeting_id"`
	Project          string               `json:"project"`
	Status           string               `json:"status"`
	Title            string               `json:"title"`
	Markdown         string               `json:"markdown"`
	Decisions        []prdoc.Decision     `json:"decisions"`
	ActionItems      []prdoc.ActionItem   `json:"action_items"`
	MemoryUpdates    []prdoc.MemoryUpdate `json:"memory_updates"`
	Agenda           []prdoc.AgendaItem   `json:"agenda"`
	OpenQuestions    []prdoc.OpenQuestion `json:"open_questions"`
	LastTranscriptID int64                `json:"last_transcript_id"`
	Error            string               `json:"error"`
}

func (h *prHarness) pr(key, id string) prBody {
	h.t.Helper()
	r := h.do(http.MethodGet, "/v1/prs/"+id, key, nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("GET PR: %d %s", r.status, r.body)
	}
	var p prBody
	r.decode(h.t, &p)
	return p
}

// build does what pr-worker does for the PR: extract with the local
// provider from the stored transcripts and topics, then upsert.
func (h *prHarness) build(tenantID, prID string) {
	h.t.Helper()
	ctx := context.Background()
	pr, err := h.store.GetPR(ctx, tenantID, prID)
	if err != nil {
		h.t.Fatal(err)
	}
	m, err := h.store.GetMeeting(ctx, tenantID, pr.MeetingID)
	if err != nil {
		h.t.Fatal(err)
	}
	rows, err := h.store.TranscriptsUpTo(ctx, tenantID, pr.MeetingID, pr.LastTranscriptID, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	in := prdoc.Input{MeetingID: m.ID, MeetingTitle: m.Title, Date: m.StartedAt}
	for _, r := range rows {
		in.Turns = append(in.Turns, prdoc.Turn{ID: r.ID, Seq: r.Seq, Speaker: r.SpeakerName, Text: r.Text, StartMS: r.StartMS, EndMS: r.EndMS})
	}
	d, err := prdoc.NewLocal().Extract(ctx, in)
	if err != nil {
		h.t.Fatal(err)
	}
	enc := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	if _, _, err := h.store.StartPR(ctx, tenantID, prID); err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.store.CompletePR(ctx, tenantID, prID, meetingpr.Content{
		Title: d.Title, Markdown: prdoc.Markdown(d), Agenda: enc(d.Agenda), Decisions: enc(d.Decisions),
		ActionItems: enc(d.ActionItems), OpenQuestions: enc(d.OpenQuestions), MemoryUpdates: enc(d.MemoryUpdates),
	}); err != nil {
		h.t.Fatal(err)
	}
}

func (h *prHarness) tenantID(key string) string {
	h.t.Helper()
	tn, err := h.store.Authenticate(context.Background(), key)
	if err != nil {
		h.t.Fatal(err)
	}
	return tn.ID
}

func TestGeneratePRQueuesOneTaskAndReturnsTheOpenPR(t *testing.T) {
	h := newPRHarness(t)
	key := h.key("acme")
	m := h.meetingIn(key, "모바일앱")
	h.post(key, m.ID, meetingLines("s", 60))

	r, first := h.generate(key, m.ID, "", nil)
	if r.status != http.StatusAccepted || first.Status != meetingpr.Queued || first.PRID == "" {
		t.Fatalf("generate-pr = %d %s", r.status, r.body)
	}
	// Repeated and concurrent requests while it is queued get the same PR.
	var wg sync.WaitGroup
	ids := make([]string, 6)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, a := h.generate(key, m.ID, "?wait=false", map[string]any{})
			if resp.status != http.StatusAccepted {
				t.Errorf("generate-pr again = %d %s", resp.status, resp.body)
			}
			ids[i] = a.PRID
		}()
	}
	wg.Wait()
	for i, id := range ids {
		if id != first.PRID {
			t.Errorf("request %d got PR %s, want %s", i, id, first.PRID)
		}
	}

	queued, err := h.insp.ListPendingTasks(tasks.QueuePR)
	if err != nil || len(queued) != 1 || queued[0].ID != first.PRID {
		t.Fatalf("pending pr tasks = %d (%v), want one with id %s", len(queued), err, first.PRID)
	}
	p, err := tasks.ParsePRGenerateTask(queued[0].Payload)
	if err != nil {
		t.Fatal(err)
	}
	last, err := h.store.LastTranscriptID(context.Background(), h.tenantID(key), m.ID, 59)
	if err != nil {
		t.Fatal(err)
	}
	c := h.context(key, m.ID)
	if p.GetLastTranscriptId() != last || p.GetMeetingId() != m.ID || len(p.GetSnapshot().GetTopics()) != len(c.L1.Topics) {
		t.Errorf("payload = last id %d (want %d), %d topics (context has %d)", p.GetLastTranscriptId(), last,
			len(p.GetSnapshot().GetTopics()), len(c.L1.Topics))
	}
	got := h.pr(key, first.PRID)
	if got.Project != "모바일앱" || got.Status != meetingpr.Queued || got.MeetingID != m.ID {
		t.Errorf("PR = %+v", got)
	}
	r = h.do(http.MethodGet, "/v1/meetings/"+m.ID+"/prs", key, nil)
	var list struct {
		PRs []prBody `json:"prs"`
	}
	r.decode(t, &list)
	if r.status != http.StatusOK || len(list.PRs) != 1 {
		t.Errorf("list = %d %s", r.status, r.body)
	}

	// Once built, the next request opens a new PR, for another project
	// when the body names one.
	h.build(h.tenantID(key), first.PRID)
	r, second := h.generate(key, m.ID, "", map[string]string{"project": "launch"})
	if r.status != http.StatusAccepted || second.PRID == first.PRID || h.pr(key, second.PRID).Project != "launch" {
		t.Fatalf("generate-pr after success = %d %s", r.status, r.body)
	}
}

// The PR row exists but Redis lost its task: asking again re-enqueues it.
func TestGeneratePRReenqueuesALostTask(t *testing.T) {
	h := newPRHarness(t)
	key := h.key("acme")
	m := h.meetingIn(key, "")
	h.post(key, m.ID, meetingLines("s", 10))
	_, first := h.generate(key, m.ID, "?wait=false", nil)

	c := redis.NewClient(&redis.Options{Addr: h.redis.addr()})
	defer c.Close()
	if err := c.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	r, again := h.generate(key, m.ID, "?wait=false", nil)
	if r.status != http.StatusAccepted || again.PRID != first.PRID {
		t.Fatalf("generate-pr after Redis lost the task = %d %s", r.status, r.body)
	}
	// A worker on this Redis gets the task.
	got := make(chan string, 1)
	srv := asynq.NewServer(asynq.RedisClientOpt{Addr: h.redis.addr()}, asynq.Config{
		Queues: map[string]int{tasks.QueuePR: 1}, Concurrency: 1, LogLevel: asynq.FatalLevel,
	})
	if err := srv.Start(asynq.HandlerFunc(func(ctx context.Context, task *asynq.Task) error {
		p, err := tasks.ParsePRGenerateTask(task.Payload())
		if err != nil {
			return err
		}
		got <- p.GetPrId()
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	select {
	case id := <-got:
		if id != first.PRID {
			t.Fatalf("worker got PR %s, want %s", id, first.PRID)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the re-enqueued task never reached a worker")
	}
	if got := h.pr(key, first.PRID); got.Project != membank.DefaultProject {
		t.Errorf("project = %q, want %q", got.Project, membank.DefaultProject)
	}
}

// With Redis down, generate-pr answers 503 and leaves no open PR behind.
func TestGeneratePRWithRedisDown(t *testing.T) {
	h := newPRHarness(t)
	key := h.key("acme")
	m := h.meetingIn(key, "")
	h.post(key, m.ID, meetingLines("s", 10))
	h.redis.stop()

	r, _ := h.generate(key, m.ID, "?wait=false", nil)
	checkClientErrorOrUnavailable(t, r)
	r = h.do(http.MethodGet, "/v1/meetings/"+m.ID+"/prs", key, nil)
	var list struct {
		PRs []prBody `json:"prs"`
	}
	r.decode(t, &list)
	if len(list.PRs) != 1 || list.PRs[0].Status != meetingpr.Failed || !strings.Contains(list.PRs[0].Error, "enqueue") {
		t.Fatalf("PRs after a failed enqueue = %s", r.body)
	}

	h.redis.start()
	r, a := h.generate(key, m.ID, "?wait=false", nil)
	if r.status != http.StatusAccepted || a.PRID == list.PRs[0].ID {
		t.Fatalf("generate-pr with Redis back = %d %s", r.status, r.body)
	}
}

func checkClientErrorOrUnavailable(t *testing.T, r response) {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if r.status != http.StatusServiceUnavailable || json.Unmarshal(r.body, &e) != nil || e.Error.Code != "unavailable" {
		t.Fatalf("got %d %s, want 503 unavailable", r.status, r.body)
	}
}

func TestGeneratePRRejectsBadRequests(t *testing.T) {
	h := newPRHarness(t)
	key, other := h.key("acme"), h.key("other")
	m := h.meetingIn(key, "")
	tests := []struct {
		name       string
		path, body string
		key        string
		want       int
	}{
		{"not a uuid", "/v1/meetings/nope/generate-pr", "", key, http.StatusBadRequest},
		{"unknown meeting", "/v1/meetings/00000000-0000-4000-8000-000000000000/generate-pr", "", key, http.StatusNotFound},
		{"other tenant", "/v1/meetings/" + m.ID + "/generate-pr", "", other, http.StatusNotFound},
		{"unknown field", "/v1/meetings/" + m.ID + "/generate-pr", `{"projekt":"x"}`, key, http.StatusBadRequest},
		{"project with slash", "/v1/meetings/" + m.ID + "/generate-pr", `{"project":"a/b"}`, key, http.StatusBadRequest},
		{"project wrong type", "/v1/meetings/" + m.ID + "/generate-pr", `{"project":7}`, key, http.StatusBadRequest},
		{"bad wait", "/v1/meetings/" + m.ID + "/generate-pr?wait=maybe", "", key, http.StatusBadRequest},
		{"no key", "/v1/meetings/" + m.ID + "/generate-pr", "", "", http.StatusUnauthorized},
		{"bad PR id", "/v1/prs/123/approve", "", key, http.StatusBadRequest},
		{"unknown PR approve", "/v1/prs/00000000-0000-4000-8000-000000000000/approve", "", key, http.StatusNotFound},
		{"approve with body field", "/v1/prs/00000000-0000-4000-8000-000000000000/approve", `{"x":1}`, key, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body []byte
			if tt.body != "" {
				body = []byte(tt.body)
			}
			r := h.do(http.MethodPost, tt.path, tt.key, body)
			if r.status != tt.want {
				t.Errorf("got %d %s, want %d", r.status, r.body, tt.want)
			}
			checkClientError(t, tt.name, r)
		})
	}
	if prs, _ := h.store.ListMeetingPRs(context.Background(), h.tenantID(key), m.ID); len(prs) != 0 {
		t.Errorf("bad requests created %d PRs", len(prs))
	}
}

type bankBody struct {
	Project    string `json:"project"`
	Categories []struct {
		Category  string     `json:"category"`
		Content   string     `json:"content"`
		UpdatedAt *time.Time `json:"updated_at"`
	} `json:"categories"`
	Status []struct {
		MeetingID string `json:"meeting_id"`
		Content   string `json:"content"`
	} `json:"status"`
}

func (b bankBody) content(cat string) string {
	for _, c := range b.Categories {
		if c.Category == cat {
			return c.Content
		}
	}
	return ""
}

func (h *prHarness) bank(key, project string) bankBody {
	h.t.Helper()
	r := h.do(http.MethodGet, "/v1/memory-bank/"+urlPath(project), key, nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("GET memory bank: %d %s", r.status, r.body)
	}
	var b bankBody
	r.decode(h.t, &b)
	return b
}

// Approving merges the PR's updates: decisions enter the ledger with the
// meeting and its date, summary and progress get the meeting's section,
// and the project status is recorded. A second approval and a second
// meeting's approval keep one section per meeting.
func TestApprovePRMergesIntoTheMemoryBank(t *testing.T) {
	h := newPRHarness(t)
	key := h.key("acme")
	tenant := h.tenantID(key)
	const project = "모바일앱"

	approve := func(meetingPrefix string) (meeting, prBody) {
		m := h.meetingIn(key, project)
		h.post(key, m.ID, meetingLines(meetingPrefix, 20))
		_, a := h.generate(key, m.ID, "?wait=false", nil)
		r := h.do(http.MethodPost, "/v1/prs/"+a.PRID+"/approve", key, nil)
		if r.status != http.StatusConflict {
			t.Fatalf("approve while queued = %d %s, want 409", r.status, r.body)
		}
		h.build(tenant, a.PRID)
		r = h.do(http.MethodPost, "/v1/prs/"+a.PRID+"/approve", key, nil)
		var p prBody
		r.decode(t, &p)
		if r.status != http.StatusOK || p.Status != meetingpr.Approved {
			t.Fatalf("approve = %d %s", r.status, r.body)
		}
		return m, p
	}
	m1, p1 := approve("a")
	if len(p1.Decisions) == 0 || len(p1.ActionItems) == 0 {
		t.Fatalf("PR has no decisions or action items: %+v", p1)
	}
	// The PR as Markdown: its document alone.
	md, body := h.getRaw(http.MethodGet, "/v1/prs/"+p1.ID+"?format=md", "Authorization", "Bearer "+key)
	if md.StatusCode != http.StatusOK || !strings.HasPrefix(md.Header.Get("Content-Type"), "text/markdown") ||
		body == "" || !strings.Contains(body, "We decided to launch the mobile app") {
		t.Fatalf("PR as markdown = %d %s %.300s", md.StatusCode, md.Header.Get("Content-Type"), body)
	}
	if r := h.do(http.MethodGet, "/v1/prs/"+p1.ID+"?format=pdf", key, nil); r.status != http.StatusBadRequest {
		t.Fatalf("PR format=pdf = %d %s", r.status, r.body)
	}
	bank := h.bank(key, project)
	ledger := bank.content(membank.CategoryDecisions)
	mtg, err := h.store.GetMeeting(context.Background(), tenant, m1.ID)
	if err != nil {
		t.Fatal(err)
	}
	date := mtg.StartedAt.Format("2006-01-02")
	if !strings.Contains(ledger, date) || !strings.Contains(ledger, "Launch review") ||
		!strings.Contains(ledger, "We decided to launch the mobile app") {
		t.Errorf("decision ledger lacks the decision with its meeting and date:\n%s", ledger)
	}
	if !strings.Contains(bank.content(membank.CategoryProgress), "민수") || bank.content(membank.CategorySummary) == "" {
		t.Errorf("progress or summary not updated:\n%+v", bank.Categories)
	}
	if len(bank.Status) != 1 || bank.Status[0].MeetingID != m1.ID || !strings.Contains(bank.Status[0].Content, "We decided") {
		t.Errorf("project status = %+v", bank.Status)
	}

	// Approving again changes nothing.
	if r := h.do(http.MethodPost, "/v1/prs/"+p1.ID+"/approve", key, nil); r.status != http.StatusOK {
		t.Fatalf("second approve = %d %s", r.status, r.body)
	}
	if again := h.bank(key, project); again.content(membank.CategoryDecisions) != ledger {
		t.Errorf("second approval changed the ledger:\n%s", again.content(membank.CategoryDecisions))
	}

	m2, _ := approve("b")
	ledger2 := h.bank(key, project).content(membank.CategoryDecisions)
	i1, i2 := strings.Index(ledger2, "meeting="+m1.ID), strings.Index(ledger2, "meeting="+m2.ID)
	if !strings.HasPrefix(ledger2, ledger) || i1 < 0 || i2 < i1 {
		t.Errorf("second meeting's decisions are not appended after the first's:\n%s", ledger2)
	}
	if n := len(h.bank(key, project).Status); n != 2 {
		t.Errorf("%d project statuses, want 2", n)
	}
	if r := h.do(http.MethodPost, "/v1/prs/"+p1.ID+"/reject", key, nil); r.status != http.StatusConflict {
		t.Errorf("reject approved = %d %s, want 409", r.status, r.body)
	}
}

func TestRejectPRLeavesTheMemoryBank(t *testing.T) {
	h := newPRHarness(t)
	key := h.key("acme")
	m := h.meetingIn(key, "p")
	h.post(key, m.ID, meetingLines("s", 10))
	_, a := h.generate(key, m.ID, "?wait=false", nil)
	h.build(h.tenantID(key), a.PRID)
	r := h.do(http.MethodPost, "/v1/prs/"+a.PRID+"/reject", key, nil)
	var p prBody
	r.decode(t, &p)
	if r.status != http.StatusOK || p.Status != meetingpr.Rejected {
		t.Fatalf("reject = %d %s", r.status, r.body)
	}
	if r := h.do(http.MethodPost, "/v1/prs/"+a.PRID+"/approve", key, nil); r.status != http.StatusConflict {
		t.Errorf("approve rejected = %d %s, want 409", r.status, r.body)
	}
	b := h.bank(key, "p")
	for _, c := range b.Categories {
		if c.Content != "" || c.UpdatedAt != nil {
			t.Errorf("category %s written by a rejected PR: %q", c.Category, c.Content)
		}
	}
	if other := h.key("other"); h.do(http.MethodGet, "/v1/prs/"+a.PRID, other, nil).status != http.StatusNotFound {
		t.Error("another tenant can read the PR")
	}
}

func TestMemoryBankPutAndGet(t *testing.T) {
	h := newPRHarness(t)
	key, other := h.key("acme"), h.key("other")
	const project = "밋허브 v2"
	path := "/v1/memory-bank/" + urlPath(project)

	r := h.json(http.MethodPut, path+"/"+membank.CategoryOverview, key, map[string]string{"content": "# 밋허브\nMeeting agent."})
	if r.status != http.StatusOK {
		t.Fatalf("PUT category = %d %s", r.status, r.body)
	}
	r = h.json(http.MethodPut, path, key, map[string]any{"categories": map[string]string{
		membank.CategorySummary: "요약", membank.CategoryLessons: "- ship smaller",
	}})
	if r.status != http.StatusOK {
		t.Fatalf("PUT project = %d %s", r.status, r.body)
	}
	b := h.bank(key, project)
	if len(b.Categories) != len(membank.Categories) || b.content(membank.CategoryOverview) != "# 밋허브\nMeeting agent." ||
		b.content(membank.CategorySummary) != "요약" || b.content(membank.CategoryLessons) != "- ship smaller" {
		t.Fatalf("bank = %+v", b)
	}
	for _, c := range b.Categories {
		if (c.Content == "") != (c.UpdatedAt == nil) {
			t.Errorf("category %s: content %q updated_at %v", c.Category, c.Content, c.UpdatedAt)
		}
	}
	r = h.do(http.MethodGet, path+"/"+membank.CategorySummary, key, nil)
	var e struct{ Content string }
	r.decode(t, &e)
	if r.status != http.StatusOK || e.Content != "요약" {
		t.Errorf("GET category = %d %s", r.status, r.body)
	}
	if ob := h.bank(other, project); ob.content(membank.CategorySummary) != "" {
		t.Error("another tenant sees the memory bank")
	}

	tests := []struct {
		name, method, path, body string
	}{
		{"unknown category", http.MethodPut, path + "/05-misc", `{"content":"x"}`},
		{"unknown category get", http.MethodGet, path + "/05-misc", ""},
		{"slash in project", http.MethodGet, "/v1/memory-bank/a%2Fb", ""},
		{"no content", http.MethodPut, path + "/" + membank.CategorySummary, `{}`},
		{"content wrong type", http.MethodPut, path + "/" + membank.CategorySummary, `{"content":1}`},
		{"unknown field", http.MethodPut, path + "/" + membank.CategorySummary, `{"content":"x","y":1}`},
		{"empty categories", http.MethodPut, path, `{"categories":{}}`},
		{"bad category in map", http.MethodPut, path, `{"categories":{"99":"x"}}`},
		{"NUL", http.MethodPut, path + "/" + membank.CategorySummary, `{"content":"a\u0000b"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body []byte
			if tt.body != "" {
				body = []byte(tt.body)
			}
			r := h.do(tt.method, tt.path, key, body)
			if r.status != http.StatusBadRequest {
				t.Errorf("got %d %s, want 400", r.status, r.body)
			}
			checkClientError(t, tt.name, r)
		})
	}
	if got := h.bank(key, project); got.content(membank.CategorySummary) != "요약" {
		t.Error("a rejected request changed the bank")
	}
}

// Ending a meeting enqueues its memory-bank update, once.
func TestEndMeetingEnqueuesMemoryBankUpdate(t *testing.T) {
	h := newPRHarness(t)
	key := h.key("acme")
	m := h.meetingIn(key, "모바일앱")
	h.post(key, m.ID, meetingLines("s", 10))
	for range 2 {
		if r := h.do(http.MethodPost, "/v1/meetings/"+m.ID+"/end", key, nil); r.status != http.StatusOK {
			t.Fatalf("end = %d %s", r.status, r.body)
		}
	}
	info, err := h.insp.GetTaskInfo(tasks.MemoryQueueName, tasks.MemoryBankUpdateTaskID(m.ID))
	if err != nil {
		t.Fatalf("memory-bank task: %v", err)
	}
	p, err := tasks.ParseMemoryBankUpdateTask(info.Payload)
	if err != nil || p.GetProject() != "모바일앱" || p.GetMeetingId() != m.ID || p.GetEndedAtUnixMs() == 0 {
		t.Errorf("payload = %v %v", p, err)
	}
	scheduled, err := h.insp.ListScheduledTasks(tasks.MemoryQueueName)
	if err != nil || len(scheduled) != 1 {
		t.Errorf("scheduled memory tasks = %d %v, want 1", len(scheduled), err)
	}
}

// urlPath percent-encodes a path segment.
func urlPath(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// privateQueue is the asynq client of the test Redis, routing every task
// to a queue of the test's own, deleted when the test ends.
type privateQueue struct {
	client *asynq.Client
	name   string
}

func (q privateQueue) EnqueueContext(ctx context.Context, task *asynq.Task, opts ...asynq.Option) (*asynq.TaskInfo, error) {
	return q.client.EnqueueContext(ctx, task, append(opts, asynq.Queue(q.name))...)
}

// testQueue is a task queue on MITHUB_TEST_REDIS_URL (default
// redis://127.0.0.1:6379/15) in a queue named for the test.
func testQueue(t testing.TB) prs.TaskQueue {
	t.Helper()
	url := os.Getenv("MITHUB_TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/15"
	}
	opt, err := asynq.ParseRedisURI(url)
	if err != nil {
		t.Fatalf("MITHUB_TEST_REDIS_URL: %v", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	q := privateQueue{client: asynq.NewClient(opt), name: "test_" + hex.EncodeToString(b[:])}
	insp := asynq.NewInspector(opt)
	t.Cleanup(func() {
		_ = insp.DeleteQueue(q.name, true)
		_ = insp.Close()
		_ = q.client.Close()
	})
	return q
}
