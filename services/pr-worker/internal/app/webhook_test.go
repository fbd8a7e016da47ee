package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/webhook"
)

const receiverSecret = "whsec_test_receiver_secret_0123"

// receiver is a real HTTP endpoint that records every attempt and, like
// a careful receiver, processes each idempotency key once.
type receiver struct {
	t   *testing.T
	srv *httptest.Server
	// respond decides the status of the n-th attempt (1-based) of a key;
	// it may block.
	respond func(key string, n int) int

	mu        sync.Mutex
	attempts  map[string]int // idempotency key → attempts seen
	processed map[string]int // idempotency key → 1 once processed
	// duplicates counts 2xx answers to keys already processed.
	duplicates int
	eventKeys  map[string]string // event id → idempotency key
	events     map[string]string // event id → type
	bodies     map[string]json.RawMessage
	badSig     int
	changed    chan struct{}
}

func newReceiver(t *testing.T, respond func(key string, n int) int) *receiver {
	r := &receiver{t: t, respond: respond, attempts: map[string]int{}, processed: map[string]int{},
		eventKeys: map[string]string{}, events: map[string]string{}, bodies: map[string]json.RawMessage{},
		changed: make(chan struct{}, 1000)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	key := req.Header.Get(webhook.IdempotencyHeader)
	eventID := req.Header.Get(webhook.EventIDHeader)
	r.mu.Lock()
	if err := webhook.Verify(req.Header.Get(webhook.SignatureHeader), body, receiverSecret, 0, time.Now()); err != nil {
		r.badSig++
	}
	r.attempts[key]++
	n := r.attempts[key]
	if prev, ok := r.eventKeys[eventID]; ok && prev != key {
		r.t.Errorf("event %s arrived under two idempotency keys: %s and %s", eventID, prev, key)
	}
	r.eventKeys[eventID] = key
	r.events[eventID] = req.Header.Get(webhook.EventHeader)
	r.mu.Unlock()

	status := r.respond(key, n)
	if status >= 200 && status < 300 {
		r.mu.Lock()
		if r.processed[key] == 0 {
			r.bodies[eventID] = body
			r.processed[key] = 1
		} else {
			r.duplicates++ // seen before: acknowledged, not processed again
		}
		r.mu.Unlock()
	}
	w.WriteHeader(status)
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// waitProcessed waits until n distinct events were answered 2xx.
func (r *receiver) waitProcessed(n int, within time.Duration) {
	r.t.Helper()
	deadline := time.After(within)
	for {
		r.mu.Lock()
		got := len(r.processed)
		r.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-r.changed:
		case <-deadline:
			r.mu.Lock()
			defer r.mu.Unlock()
			r.t.Fatalf("receiver processed %d events after %v, want %d; attempts %v", got, within, n, r.attempts)
		}
	}
}

func addWebhook(t *testing.T, st *store.Store, tenantID, url string, events ...string) webhook.Webhook {
	t.Helper()
	w, err := st.CreateWebhook(context.Background(), tenantID, url, events, receiverSecret)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// A receiver that fails twice, then succeeds, gets pr.ready and
// memory_bank.updated from the worker: three attempts each under one
// idempotency key, processed once, signed, logged.
func TestWebhookRetriesUntilTheReceiverSucceeds(t *testing.T) {
	rs := startRedis(t)
	dsn, schema := storetest.NewSchema(t)
	st := openStore(t, dsn, schema)
	tn, m, rows := seedMeeting(t, st, "acme", 30)
	rcv := newReceiver(t, func(_ string, n int) int {
		if n <= 2 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	hook := addWebhook(t, st, tn.ID, rcv.srv.URL+"/hooks", webhook.PRReady, webhook.MemoryBankUpdated)
	start(t, workerConfig(t, dsn, schema, rs.url(), map[string]string{"MITHUB_WEBHOOK_ALLOW_PRIVATE": "1"}))

	client := asynq.NewClient(rs.clientOpt(t))
	t.Cleanup(func() { _ = client.Close() })
	pr := queuePR(t, st, client, tn, m, rows[len(rows)-1].ID, nil)
	bank, err := tasks.NewMemoryBankUpdateTask(&mithubv1.MemoryBankUpdateTask{TenantId: tn.ID, MeetingId: m.ID,
		Project: "default", EndedAtUnixMs: time.Now().UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Enqueue(bank); err != nil {
		t.Fatal(err)
	}

	rcv.waitProcessed(2, 90*time.Second)
	rcv.mu.Lock()
	for _, id := range []string{webhook.EventID(webhook.PRReady, pr.ID), webhook.EventID(webhook.MemoryBankUpdated, "meeting:"+m.ID)} {
		key := rcv.eventKeys[id]
		if key == "" || rcv.attempts[key] != 3 || rcv.processed[key] != 1 {
			t.Errorf("event %s: key %q, %d attempts, processed %d times; want 3 attempts, processed once", id, key, rcv.attempts[key], rcv.processed[key])
		}
	}
	if rcv.badSig != 0 {
		t.Errorf("%d requests failed signature verification", rcv.badSig)
	}
	var env struct {
		Type string
		Data webhook.PRData
	}
	if err := json.Unmarshal(rcv.bodies[webhook.EventID(webhook.PRReady, pr.ID)], &env); err != nil ||
		env.Type != webhook.PRReady || env.Data.PRID != pr.ID || env.Data.Status != "succeeded" || string(env.Data.ActionItems) == "[]" {
		t.Errorf("pr.ready body = %+v %v", env, err)
	}
	rcv.mu.Unlock()

	// The delivery log says the same, and the webhook's failure count was
	// reset by the successes.
	deadline := time.Now().Add(10 * time.Second)
	for {
		log, err := st.WebhookDeliveries(context.Background(), tn.ID, hook.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		done := len(log) == 2
		for _, d := range log {
			done = done && d.Status == webhook.Succeeded && d.Attempts == 3 && d.LastStatus == 200
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery log = %+v", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if w, _ := st.Webhook(context.Background(), tn.ID, hook.ID); w.ConsecutiveFailures != 0 || w.Status != webhook.Active {
		t.Errorf("webhook after the successes = %+v", w)
	}
}

// A receiver that never succeeds disables its webhook after
// MITHUB_WEBHOOK_DISABLE_AFTER failed attempts; nothing is sent after.
func TestWebhookDisabledAfterRepeatedFailures(t *testing.T) {
	rs := startRedis(t)
	dsn, schema := storetest.NewSchema(t)
	st := openStore(t, dsn, schema)
	tn, err := st.EnsureTenant(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	rcv := newReceiver(t, func(string, int) int { return http.StatusInternalServerError })
	hook := addWebhook(t, st, tn.ID, rcv.srv.URL, webhook.PRApproved)
	start(t, workerConfig(t, dsn, schema, rs.url(), map[string]string{
		"MITHUB_WEBHOOK_ALLOW_PRIVATE": "1", "MITHUB_WEBHOOK_DISABLE_AFTER": "3"}))
	client := asynq.NewClient(rs.clientOpt(t))
	t.Cleanup(func() { _ = client.Close() })
	em := &webhook.Emitter{Store: st, Queue: tasks.WebhookQueue{Client: client}}
	if err := em.Emit(context.Background(), tn.ID, webhook.PRApproved, "pr.approved:x", map[string]string{"pr_id": "x"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		w, err := st.Webhook(context.Background(), tn.ID, hook.ID)
		if err != nil {
			t.Fatal(err)
		}
		if w.Status == webhook.Disabled {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook still %s after %d failures", w.Status, w.ConsecutiveFailures)
		}
		time.Sleep(50 * time.Millisecond)
	}
	rcv.mu.Lock()
	n := 0
	for _, a := range rcv.attempts {
		n += a
	}
	rcv.mu.Unlock()
	if n != 3 {
		t.Errorf("receiver saw %d attempts, want 3", n)
	}
}

// The worker is killed with SIGKILL while a delivery's request is in
// flight. The next worker delivers it again under the same idempotency
// key, so a receiver that de-duplicates processes every event once.
func TestWebhookDeliveredOnceThroughWorkerKill(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for asynq's lease expiry (about a minute)")
	}
	rs := startRedis(t)
	dsn, schema := storetest.NewSchema(t)
	st := openStore(t, dsn, schema)
	tn, err := st.EnsureTenant(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	inFlight := make(chan string, 10)
	release := make(chan struct{})
	var once sync.Once
	rcv := newReceiver(t, func(key string, n int) int {
		blocked := false
		once.Do(func() { blocked = true })
		if blocked {
			inFlight <- key
			<-release
		}
		return http.StatusOK
	})
	hook := addWebhook(t, st, tn.ID, rcv.srv.URL, webhook.PRApproved, webhook.PRRejected, webhook.MeetingEnded)
	bin := buildWorker(t)
	env := map[string]string{
		"MITHUB_DATABASE_URL":          storetest.URLWithSchema(t, dsn, schema),
		"MITHUB_REDIS_URL":             rs.url(),
		"MITHUB_WORKER_HTTP_ADDR":      "127.0.0.1:0",
		"MITHUB_WEBHOOK_ALLOW_PRIVATE": "1",
		"MITHUB_WORKER_CONCURRENCY":    "1",
	}
	first := startWorker(t, bin, env)
	client := asynq.NewClient(rs.clientOpt(t))
	t.Cleanup(func() { _ = client.Close() })
	em := &webhook.Emitter{Store: st, Queue: tasks.WebhookQueue{Client: client}}
	ctx := context.Background()
	events := []struct{ event, id string }{
		{webhook.PRApproved, "pr.approved:1"}, {webhook.PRRejected, "pr.rejected:2"}, {webhook.MeetingEnded, "meeting.ended:3"},
	}
	if err := em.Emit(ctx, tn.ID, events[0].event, events[0].id, map[string]int{"n": 0}); err != nil {
		t.Fatal(err)
	}
	var key string
	select {
	case key = <-inFlight:
	case <-time.After(60 * time.Second):
		t.Fatalf("no delivery reached the receiver; worker output:\n%s", first.out.String())
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-first.done
	close(release) // the receiver processes the request the dead worker sent

	// The rest, emitted while no worker runs, and the first again.
	for i, e := range events {
		if err := em.Emit(ctx, tn.ID, e.event, e.id, map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	startWorker(t, bin, env)
	deadline := time.Now().Add(4 * time.Minute)
	for {
		log, err := st.WebhookDeliveries(ctx, tn.ID, hook.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		done := len(log) == len(events)
		for _, d := range log {
			done = done && d.Status == webhook.Succeeded
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery log after the kill = %+v", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if rcv.attempts[key] < 2 || rcv.duplicates < 1 {
		t.Errorf("the killed delivery was sent %d times (%d duplicates), want it again after the kill", rcv.attempts[key], rcv.duplicates)
	}
	if len(rcv.eventKeys) != len(events) || len(rcv.processed) != len(events) {
		t.Fatalf("receiver saw events %v and processed keys %v, want %d each", rcv.eventKeys, rcv.processed, len(events))
	}
	for _, e := range events {
		k := rcv.eventKeys[e.id]
		if k == "" || rcv.processed[k] != 1 {
			t.Errorf("event %s processed %d times, want once", e.id, rcv.processed[k])
		}
		if rcv.events[e.id] != e.event {
			t.Errorf("event %s arrived as %q", e.id, rcv.events[e.id])
		}
	}
	if rcv.badSig != 0 {
		t.Errorf("%d requests failed signature verification", rcv.badSig)
	}
}
