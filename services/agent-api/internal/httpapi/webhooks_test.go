package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/tasks"
)

type webhookBody struct {
	ID                      string   `json:"id"`
	URL                     string   `json:"url"`
	Events                  []string `json:"events"`
	Status                  string   `json:"status"`
	Secret                  string   `json:"secret"`
	PreviousSecretExpiresAt *string  `json:"previous_secret_expires_at"`
}

type deliveryLog struct {
	Deliveries []struct {
		ID      string          `json:"id"`
		EventID string          `json:"event_id"`
		Event   string          `json:"event"`
		Status  string          `json:"status"`
		Payload json.RawMessage `json:"payload"`
	} `json:"deliveries"`
}

func TestWebhookRoutes(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key, other := h.key("acme"), h.key("other")

	r := h.json(http.MethodPost, "/v1/webhooks", key, map[string]any{"url": "https://hooks.example.com/mithub", "events": []string{"pr.approved", "meeting.ended"}})
	var w webhookBody
	r.decode(t, &w)
	if r.status != http.StatusCreated || !strings.HasPrefix(w.Secret, "whsec_") || w.Status != "active" || len(w.Events) != 2 {
		t.Fatalf("create = %d %s", r.status, r.body)
	}
	var got webhookBody
	h.do(http.MethodGet, "/v1/webhooks/"+w.ID, key, nil).decode(t, &got)
	if got.ID != w.ID || got.Secret != "" {
		t.Fatalf("get = %+v: the secret must not be shown again", got)
	}
	var list struct{ Webhooks []webhookBody }
	h.do(http.MethodGet, "/v1/webhooks", key, nil).decode(t, &list)
	if len(list.Webhooks) != 1 || list.Webhooks[0].Secret != "" {
		t.Fatalf("list = %+v", list)
	}
	h.do(http.MethodGet, "/v1/webhooks", other, nil).decode(t, &list)
	if len(list.Webhooks) != 0 {
		t.Fatal("another tenant lists the webhook")
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		if r := h.do(m, "/v1/webhooks/"+w.ID, other, nil); r.status != http.StatusNotFound {
			t.Fatalf("%s by another tenant = %d", m, r.status)
		}
	}
	r = h.json(http.MethodPost, "/v1/webhooks/"+w.ID+"/rotate-secret", key, map[string]string{"secret": "whsec_chosen_by_the_tenant"})
	var rot webhookBody
	r.decode(t, &rot)
	if r.status != http.StatusOK || rot.Secret != "whsec_chosen_by_the_tenant" || rot.PreviousSecretExpiresAt == nil {
		t.Fatalf("rotate = %d %s", r.status, r.body)
	}
	if r := h.do(http.MethodGet, "/v1/webhooks/"+w.ID+"/deliveries", key, nil); r.status != http.StatusOK || !strings.Contains(string(r.body), `"deliveries":[]`) {
		t.Fatalf("deliveries = %d %s", r.status, r.body)
	}

	for _, tc := range []struct {
		name string
		body string
		want string
	}{
		{"loopback", `{"url":"http://127.0.0.1:9000/x","events":["pr.ready"]}`, "not a public address"},
		{"metadata service", `{"url":"http://169.254.169.254/latest","events":["pr.ready"]}`, "not a public address"},
		{"localhost", `{"url":"http://localhost:9000/x","events":["pr.ready"]}`, "loopback host"},
		{"scheme", `{"url":"file:///etc/passwd","events":["pr.ready"]}`, "http:// or https://"},
		{"unknown event", `{"url":"https://example.com/x","events":["pr.merged"]}`, "unknown event"},
		{"no events", `{"url":"https://example.com/x","events":[]}`, "at least one"},
		{"short secret", `{"url":"https://example.com/x","events":["pr.ready"],"secret":"abc"}`, "secret must be"},
		{"unknown field", `{"url":"https://example.com/x","events":["pr.ready"],"retries":3}`, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do(http.MethodPost, "/v1/webhooks", key, []byte(tc.body))
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), tc.want) {
				t.Fatalf("got %d %s, want 400 mentioning %q", r.status, r.body, tc.want)
			}
		})
	}
	if r := h.do(http.MethodDelete, "/v1/webhooks/"+w.ID, key, nil); r.status != http.StatusNoContent {
		t.Fatalf("delete = %d %s", r.status, r.body)
	}
	if r := h.do(http.MethodGet, "/v1/webhooks/"+w.ID, key, nil); r.status != http.StatusNotFound {
		t.Fatalf("get after delete = %d", r.status)
	}
}

// Ending a meeting and reviewing a PR record one delivery per event and
// subscribed webhook, and queue its task; doing it again adds nothing.
func TestWebhookEventsAreRecordedOnce(t *testing.T) {
	h := newPRHarness(t)
	key := h.key("acme")
	tenant := h.tenantID(key)
	var all, endOnly webhookBody
	h.json(http.MethodPost, "/v1/webhooks", key, map[string]any{"url": "http://127.0.0.1:9/all",
		"events": []string{"meeting.ended", "pr.approved", "pr.rejected", "memory_bank.updated"}}).decode(t, &all)
	h.json(http.MethodPost, "/v1/webhooks", key, map[string]any{"url": "http://127.0.0.1:9/end",
		"events": []string{"meeting.ended"}}).decode(t, &endOnly)
	if all.ID == "" || endOnly.ID == "" {
		t.Fatal("webhooks not created")
	}
	// Another tenant's webhook never sees these events.
	var foreign webhookBody
	h.json(http.MethodPost, "/v1/webhooks", h.key("other"), map[string]any{"url": "http://127.0.0.1:9/x",
		"events": []string{"meeting.ended"}}).decode(t, &foreign)

	m := h.meetingIn(key, "모바일앱")
	h.post(key, m.ID, meetingLines("s", 20))
	for range 2 {
		if r := h.do(http.MethodPost, "/v1/meetings/"+m.ID+"/end", key, nil); r.status != http.StatusOK {
			t.Fatalf("end = %d %s", r.status, r.body)
		}
	}
	_, a := h.generate(key, m.ID, "?wait=false", nil)
	h.build(tenant, a.PRID)
	for range 2 {
		if r := h.do(http.MethodPost, "/v1/prs/"+a.PRID+"/approve", key, nil); r.status != http.StatusOK {
			t.Fatalf("approve = %d %s", r.status, r.body)
		}
	}

	events := func(id, k string) map[string]string {
		var log deliveryLog
		r := h.do(http.MethodGet, "/v1/webhooks/"+id+"/deliveries", k, nil)
		r.decode(t, &log)
		out := map[string]string{}
		for _, d := range log.Deliveries {
			if _, dup := out[d.EventID]; dup {
				t.Fatalf("event %s recorded twice for webhook %s", d.EventID, id)
			}
			out[d.EventID] = d.ID
			var env struct {
				ID, Type string
				Data     map[string]any
			}
			if err := json.Unmarshal(d.Payload, &env); err != nil || env.ID != d.EventID || env.Type != d.Event || env.Data == nil {
				t.Fatalf("payload %s: %+v %v", d.Payload, env, err)
			}
			if _, err := h.insp.GetTaskInfo(tasks.QueueWebhook, tasks.WebhookDeliverTaskID(d.ID)); err != nil {
				t.Fatalf("delivery %s (%s) has no task: %v", d.ID, d.EventID, err)
			}
		}
		return out
	}
	got := events(all.ID, key)
	for _, want := range []string{"meeting.ended:" + m.ID, "pr.approved:" + a.PRID, "memory_bank.updated:pr:" + a.PRID} {
		if got[want] == "" {
			t.Errorf("webhook with every event lacks %s: %v", want, got)
		}
	}
	if len(got) != 3 {
		t.Errorf("webhook with every event got %d deliveries: %v", len(got), got)
	}
	if got := events(endOnly.ID, key); len(got) != 1 || got["meeting.ended:"+m.ID] == "" {
		t.Errorf("meeting.ended-only webhook got %v", got)
	}
	if got := events(foreign.ID, h.key("other")); len(got) != 0 {
		t.Errorf("another tenant's webhook got %v", got)
	}
}
