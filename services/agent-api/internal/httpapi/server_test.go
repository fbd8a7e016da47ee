package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/health"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/tokens"
	"github.com/mithub/mithub/pkg/webhook"
	"github.com/mithub/mithub/services/agent-api/internal/ask"
	"github.com/mithub/mithub/services/agent-api/internal/httpapi"
	"github.com/mithub/mithub/services/agent-api/internal/meetingcache"
	"github.com/mithub/mithub/services/agent-api/internal/meetings"
	"github.com/mithub/mithub/services/agent-api/internal/prs"
	"github.com/mithub/mithub/services/agent-api/internal/search"
)

type harness struct {
	t     testing.TB
	app   *fiber.App
	base  string
	store *store.Store
	cache *meetingcache.Cache
	ask   *ask.Service
}

type harnessOpts struct {
	cacheSize int
	bodyLimit int
	// engine, l1Wait, planner and answerer default to the local
	// providers and a 5 s wait.
	engine   *meetingctx.Engine
	l1Wait   time.Duration
	planner  answer.Planner
	answerer answer.Answerer
	// streams caps the event streams; logOut receives the server's log
	// (default: discarded).
	streams httpapi.StreamLimits
	logOut  io.Writer
	// searcher serves /v1/search (default: the store).
	searcher search.TopicSearcher
	// webhookAllowPrivate lets webhooks target loopback receivers.
	webhookAllowPrivate bool
}

// askService is the ask path as agent-api wires it.
func askService(t testing.TB, st *store.Store, cache *meetingcache.Cache, counter tokens.Counter, o harnessOpts) *ask.Service {
	if o.planner == nil {
		o.planner, o.answerer = answer.RulePlanner{}, answer.Extractive{}
	}
	w, r := st.NewCheckpointWriter(), st.NewMeetingReader()
	t.Cleanup(func() { w.Close(); r.Close() })
	return &ask.Service{
		Store: ask.BatchedStore{Store: st, Checkpoints: w, Meetings: r}, Contexts: cache, Planner: o.planner, Answerer: o.answerer, Counter: counter,
		Model: "local", Window: tokens.ContextWindow("local", 0), ReservedOutput: 1024, L1Wait: o.l1Wait,
		MemoryBank: ask.StoredBank(st),
		Log:        slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func newHarness(t testing.TB, o harnessOpts) *harness {
	t.Helper()
	if o.cacheSize == 0 {
		o.cacheSize = 100
	}
	if o.bodyLimit == 0 {
		o.bodyLimit = 1 << 20
	}
	if o.l1Wait == 0 {
		o.l1Wait = 5 * time.Second
	}
	st := storetest.New(t)
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	metrics := httpapi.NewMetrics(reg)
	eng := o.engine
	if eng == nil {
		eng = newEngine(t, st)
	}
	cache := meetingcache.New(st, meetingctx.Config{}, eng, o.cacheSize, time.Hour, meetingcache.Observer{})
	if o.logOut == nil {
		o.logOut = io.Discard
	}
	svc := askService(t, st, cache, counter, o)
	d := httpapi.Deps{
		Log: slog.New(slog.NewTextHandler(o.logOut, nil)), Streams: o.streams,
		Store: st, Contexts: cache, Metrics: metrics, Registry: reg,
		BodyLimit: o.bodyLimit, L1Wait: o.l1Wait,
		Ready:      map[string]health.Check{"postgres": st.Ping},
		Ask:        svc,
		MemoryBank: st,
		Memory:     testMemory(st, counter),
		Webhooks:   st,
		WebhookConfig: webhook.Config{AllowPrivate: o.webhookAllowPrivate, Timeout: time.Second, DisableAfter: 3,
			SecretGrace: time.Hour},
	}
	wireUseCases(&d, useCaseDeps{store: st, engine: eng, searcher: o.searcher, queue: testQueue(t), counter: counter})
	app := httpapi.New(d)
	return &harness{t: t, app: app, base: serve(t, app), store: st, cache: cache, ask: svc}
}

// serve runs app on a loopback port until the test ends.
func serve(t testing.TB, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = app.Listener(httpapi.LingerListener(ln))
	}()
	t.Cleanup(func() {
		_ = app.Shutdown()
		<-done
	})
	return "http://" + ln.Addr().String()
}

// key creates an API key for a tenant.
func (h *harness) key(tenant string) string {
	h.t.Helper()
	k, err := h.store.CreateAPIKey(context.Background(), tenant, "test")
	if err != nil {
		h.t.Fatal(err)
	}
	return k
}

type response struct {
	status int
	body   []byte
}

func (r response) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

func (h *harness) do(method, path, key string, body []byte, header ...string) response {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, h.base+path, rd)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, body: b}
}

func (h *harness) json(method, path, key string, v any) response {
	h.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.do(method, path, key, b)
}

type meeting struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Counters struct {
		Utterances int   `json:"utterances"`
		Tokens     int64 `json:"tokens"`
		LastSeq    int   `json:"last_seq"`
	} `json:"counters"`
}

func (h *harness) createMeeting(key string) meeting {
	h.t.Helper()
	r := h.json(http.MethodPost, "/v1/meetings", key, map[string]string{"title": "주간 회의 weekly", "language": "ko"})
	if r.status != http.StatusCreated {
		h.t.Fatalf("create meeting: %d %s", r.status, r.body)
	}
	var m meeting
	r.decode(h.t, &m)
	return m
}

type utterance struct {
	SegmentID   string  `json:"segment_id"`
	SpeakerID   string  `json:"speaker_id"`
	SpeakerName string  `json:"speaker_name"`
	Text        string  `json:"text"`
	StartMS     int64   `json:"start_ms"`
	EndMS       int64   `json:"end_ms"`
	Confidence  float32 `json:"confidence"`
}

type ingest struct {
	Inserted   int `json:"inserted"`
	Duplicates int `json:"duplicates"`
	Cursor     int `json:"cursor"`
}

func (h *harness) post(key, meetingID string, us []utterance) ingest {
	h.t.Helper()
	r := h.json(http.MethodPost, "/v1/meetings/"+meetingID+"/utterances", key, map[string]any{"utterances": us})
	if r.status != http.StatusOK {
		h.t.Fatalf("post utterances: %d %s", r.status, r.body)
	}
	var in ingest
	r.decode(h.t, &in)
	return in
}

type contextBody struct {
	MeetingID string `json:"meeting_id"`
	Cursor    int    `json:"cursor"`
	L0        struct {
		Turns  []meetingctx.Turn `json:"turns"`
		Tokens int               `json:"tokens"`
	} `json:"l0"`
	L1 struct {
		Cursor int                `json:"cursor"`
		Topics []meetingctx.Topic `json:"topics"`
		Busy   bool               `json:"busy"`
		Waited *bool              `json:"waited"`
	} `json:"l1"`
	Pending struct {
		Turns  []meetingctx.Turn `json:"turns"`
		Tokens int               `json:"tokens"`
	} `json:"pending"`
	Speakers []meetingctx.Speaker `json:"speakers"`
	Counters struct {
		Utterances int   `json:"utterances"`
		Tokens     int64 `json:"tokens"`
		LastSeq    int   `json:"last_seq"`
	} `json:"counters"`
}

func (h *harness) context(key, meetingID string) contextBody {
	h.t.Helper()
	r := h.do(http.MethodGet, "/v1/meetings/"+meetingID+"/context?wait=true", key, nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("context: %d %s", r.status, r.body)
	}
	var c contextBody
	r.decode(h.t, &c)
	return c
}

// newHarnessOnStore is a second server (a restarted or another replica) on
// the same database with an empty cache.
func newHarnessOnStore(t *testing.T, h *harness) *harness {
	t.Helper()
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	eng := newEngine(t, h.store)
	cache := meetingcache.New(h.store, meetingctx.Config{}, eng, 100, time.Hour, meetingcache.Observer{})
	d := httpapi.Deps{
		Log:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Store: h.store, Contexts: cache, Metrics: httpapi.NewMetrics(reg), Registry: reg,
		BodyLimit: 1 << 20, L1Wait: 5 * time.Second,
		Ask: askService(t, h.store, cache, counter, harnessOpts{l1Wait: 5 * time.Second}),
	}
	wireUseCases(&d, useCaseDeps{store: h.store, engine: eng, counter: counter})
	app := httpapi.New(d)
	return &harness{t: t, app: app, base: serve(t, app), store: h.store, cache: cache}
}

// newEngine runs L1 with the local providers, like agent-api's default.
func newEngine(t testing.TB, st *store.Store) *meetingctx.Engine {
	t.Helper()
	if _, err := st.EnableVectors(context.Background(), 64); err != nil {
		t.Fatal(err)
	}
	eng := meetingctx.NewEngine(meetingctx.EngineDeps{
		Segmenter:  segment.NewSegmenter(segment.SegmenterConfig{}),
		Summarizer: segment.NewSummarizer(),
		Embedder:   segment.NewEmbedder(64),
		Store:      meetingcache.TopicStore{Rows: st},
	})
	t.Cleanup(func() { _ = eng.Close(10 * time.Second) })
	return eng
}

// testMemory is an in-process memory on st that compresses with the
// offline summarizer.
func testMemory(st *store.Store, counter tokens.Counter) *convmemory.Service {
	eng := convmemory.NewEngine(st, counter, convmemory.NewLocal(), convmemory.Config{})
	return convmemory.NewService(eng, convmemory.NewInline(eng))
}

// useCaseDeps are what the use cases need beyond httpapi.Deps.
type useCaseDeps struct {
	store    *store.Store
	engine   *meetingctx.Engine
	searcher search.TopicSearcher // default: store
	queue    prs.TaskQueue        // nil: no PR generation
	counter  tokens.Counter
}

// wireUseCases sets d's use cases as app wires them; PRs are configured
// when d.MemoryBank is.
func wireUseCases(d *httpapi.Deps, u useCaseDeps) {
	if u.searcher == nil {
		u.searcher = u.store
	}
	prFlow := &prs.Service{Queue: u.queue, Meetings: u.store, Contexts: d.Contexts, L1Wait: d.L1Wait, Log: d.Log}
	if d.MemoryBank != nil {
		prFlow.PRs = u.store
	}
	d.PRFlow = prFlow
	d.Meetings = &meetings.Service{Store: u.store, Contexts: d.Contexts, Tokens: u.counter, Log: d.Log, Ended: prFlow.MeetingEnded}
	if u.queue != nil {
		// Webhook events go through the same queue, as agent-api wires them.
		events := &webhook.Emitter{Store: u.store, Queue: tasks.WebhookQueue{Client: u.queue}, Log: d.Log}
		prFlow.Events, d.Meetings.Events = events, events
	}
	d.Search = &search.Service{Embedder: u.engine, Searcher: u.searcher, Threshold: 0.3, Contexts: d.Contexts, Turns: d.Ask, Log: d.Log}
}
