package webhook

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// memStore is an in-memory Store of one webhook.
type memStore struct {
	mu       sync.Mutex
	hook     Webhook
	dels     map[string]*Delivery
	attempts []Attempt
}

func (m *memStore) SubscribedWebhooks(_ context.Context, _, event string) ([]Webhook, error) {
	if m.hook.Status == Active && m.hook.Subscribed(event) {
		return []Webhook{m.hook}, nil
	}
	return nil, nil
}

func (m *memStore) CreateWebhookDelivery(_ context.Context, _, webhookID, eventID, event string, payload []byte) (Delivery, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d, ok := m.dels[eventID]; ok {
		return *d, false, nil
	}
	d := &Delivery{ID: "d-" + eventID, WebhookID: webhookID, EventID: eventID, Event: event, Payload: payload, Status: Pending}
	m.dels[eventID] = d
	return *d, true, nil
}

func (m *memStore) WebhookDelivery(_ context.Context, _, id string) (Delivery, Webhook, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range m.dels {
		if d.ID == id {
			return *d, m.hook, nil
		}
	}
	return Delivery{}, Webhook{}, errors.New("not found")
}

func (m *memStore) RecordWebhookAttempt(_ context.Context, _, id string, a Attempt, _ int) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.attempts = append(m.attempts, a)
	for _, d := range m.dels {
		if d.ID == id {
			d.Attempts++
			switch {
			case a.OK:
				d.Status = Succeeded
			case a.Final:
				d.Status = Failed
			}
		}
	}
	return false, nil
}

type memQueue struct{ ids []string }

func (q *memQueue) EnqueueDelivery(_ context.Context, _, id string) error {
	q.ids = append(q.ids, id)
	return nil
}

func TestEmitAndDeliver(t *testing.T) {
	var got *http.Request
	var body []byte
	status := http.StatusInternalServerError
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		body, _ = io.ReadAll(r.Body)
		w.WriteHeader(status)
	}))
	defer srv.Close()
	st := &memStore{hook: Webhook{ID: "w1", URL: srv.URL, Events: []string{PRApproved}, Secret: "whsec_0123456789abcdef", Status: Active},
		dels: map[string]*Delivery{}}
	q := &memQueue{}
	em := &Emitter{Store: st, Queue: q}
	ctx := context.Background()
	for range 2 {
		if err := em.Emit(ctx, "t1", PRApproved, "pr.approved:p1", map[string]string{"pr_id": "p1"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := em.Emit(ctx, "t1", PRReady, "pr.ready:p1", nil); err != nil || len(st.dels) != 1 {
		t.Fatalf("an unsubscribed event made a delivery: %v %d", err, len(st.dels))
	}
	if len(q.ids) != 2 || q.ids[0] != q.ids[1] {
		t.Fatalf("queued %v, want the same delivery twice (one task id)", q.ids)
	}

	d := &Deliverer{Store: st, Client: Client(time.Second, true)}
	if err := d.Deliver(ctx, "t1", q.ids[0], false); err == nil || errors.Is(err, ErrGiveUp) {
		t.Fatalf("a 500 = %v, want a retryable error", err)
	}
	status = http.StatusNoContent
	if err := d.Deliver(ctx, "t1", q.ids[0], false); err != nil {
		t.Fatal(err)
	}
	if got.Header.Get(IdempotencyHeader) != q.ids[0] || got.Header.Get(EventHeader) != PRApproved || got.Header.Get(EventIDHeader) != "pr.approved:p1" {
		t.Errorf("headers = %v", got.Header)
	}
	if err := Verify(got.Header.Get(SignatureHeader), body, "whsec_0123456789abcdef", 0, time.Now()); err != nil {
		t.Errorf("signature: %v", err)
	}
	// Delivered: another run sends nothing.
	got = nil
	if err := d.Deliver(ctx, "t1", q.ids[0], false); err != nil || got != nil {
		t.Fatalf("delivered again: %v %v", err, got)
	}

	// A private target without MITHUB_WEBHOOK_ALLOW_PRIVATE fails for good.
	st.dels["pr.approved:p2"] = &Delivery{ID: "d2", EventID: "pr.approved:p2", Event: PRApproved, Payload: []byte(`{}`), Status: Pending}
	strict := &Deliverer{Store: st, Client: Client(time.Second, false)}
	if err := strict.Deliver(ctx, "t1", "d2", false); !errors.Is(err, ErrGiveUp) {
		t.Fatalf("private target = %v, want ErrGiveUp", err)
	}
	if st.dels["pr.approved:p2"].Status != Failed {
		t.Errorf("delivery to a private target is %s, want failed", st.dels["pr.approved:p2"].Status)
	}
}
