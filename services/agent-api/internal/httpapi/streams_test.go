package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/syncbuf"
	"github.com/mithub/mithub/services/agent-api/internal/httpapi"
)

// tryEvents opens an event stream and, when it is refused, returns the
// status and body; when it opens, the status is 200 and cancel closes it.
func tryEvents(t *testing.T, h *harness, key, path string) (int, string, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Accept", "text/event-stream")
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK {
		go func() { _, _ = io.Copy(io.Discard, resp.Body); resp.Body.Close() }()
		return resp.StatusCode, "", cancel
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cancel()
	return resp.StatusCode, string(b), cancel
}

func wantRefused(t *testing.T, status int, body string, wantStatus int, wantIn string) {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if status != wantStatus || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != "too_many_streams" ||
		!strings.Contains(e.Error.Message, wantIn) {
		t.Fatalf("got %d %s, want %d too_many_streams naming %q", status, body, wantStatus, wantIn)
	}
}

// metricValue reads one series from /metrics; -1 when it is absent.
func metricValue(t *testing.T, h *harness, series string) string {
	t.Helper()
	r := h.do(http.MethodGet, "/metrics", "", nil)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(string(r.body))
	if m == nil {
		return "absent"
	}
	return m[1]
}

// The key's cap, then the tenant's, then the server's: each refusal has
// its status and error, is logged at WARN (never ERROR) and counted; a
// closed stream frees its slots.
func TestEventStreamCaps(t *testing.T) {
	var log syncbuf.Buffer
	h := newHarness(t, harnessOpts{streams: httpapi.StreamLimits{PerKey: 2, PerTenant: 3, Server: 4}, logOut: &log})
	a1, a2, b1 := h.key("acme"), h.key("acme"), h.key("bolt")
	ma, mb := h.createMeeting(a1), h.createMeeting(b1)
	pa, pb := "/v1/meetings/"+ma.ID+"/events", "/v1/meetings/"+mb.ID+"/events"

	var a1Streams []context.CancelFunc
	for i := range 2 {
		st, body, cancel := tryEvents(t, h, a1, pa)
		if st != http.StatusOK {
			t.Fatalf("stream %d of key a1: %d %s", i, st, body)
		}
		a1Streams = append(a1Streams, cancel)
	}
	st, body, _ := tryEvents(t, h, a1, pa)
	wantRefused(t, st, body, http.StatusTooManyRequests, "API key")

	if st, body, _ := tryEvents(t, h, a2, pa); st != http.StatusOK {
		t.Fatalf("first stream of key a2: %d %s", st, body)
	}
	st, body, _ = tryEvents(t, h, a2, pa)
	wantRefused(t, st, body, http.StatusTooManyRequests, "tenant")

	if st, body, _ := tryEvents(t, h, b1, pb); st != http.StatusOK {
		t.Fatalf("first stream of tenant bolt: %d %s", st, body)
	}
	st, body, _ = tryEvents(t, h, b1, pb)
	wantRefused(t, st, body, http.StatusServiceUnavailable, "server")

	// Closing one of a1's streams lets a1 open one again.
	a1Streams[0]()
	deadline := time.Now().Add(eventWait)
	for {
		st, body, _ := tryEvents(t, h, a1, pa)
		if st == http.StatusOK {
			break
		}
		if st != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("after closing a stream of a1: %d %s", st, body)
		}
		time.Sleep(20 * time.Millisecond)
	}

	for limit, want := range map[string]string{"key": "1", "tenant": "1", "server": "1"} {
		series := `mithub_event_streams_refused_total{limit="` + limit + `"}`
		if got := metricValue(t, h, series); limit != "key" && got != want {
			t.Errorf("%s = %s, want %s", series, got, want)
		} else if limit == "key" && (got == "absent" || got == "0") {
			t.Errorf("%s = %s, want at least 1", series, got)
		}
	}
	if got := metricValue(t, h, "mithub_event_streams_open"); got != "4" {
		t.Errorf("mithub_event_streams_open = %s, want 4", got)
	}
	out := log.String()
	if n := strings.Count(out, `level=WARN msg="event stream refused"`); n < 3 {
		t.Errorf("%d refusals logged at WARN, want at least 3:\n%s", n, out)
	}
	if strings.Contains(out, "level=ERROR") {
		t.Errorf("a refusal was logged at ERROR:\n%s", out)
	}
}

// A stream whose key is revoked ends at the next re-check, with an error
// event, although the key cache still holds the key; a stream of a valid
// key of the same tenant goes on delivering.
func TestEventStreamEndsWhenItsKeyIsRevoked(t *testing.T) {
	h := newHarness(t, harnessOpts{streams: httpapi.StreamLimits{KeyRecheck: 100 * time.Millisecond}})
	revoked, kept := h.key("acme"), h.key("acme")
	m := h.createMeeting(kept)
	path := "/v1/meetings/" + m.ID + "/events"
	// The key works on a request, so it is in the key cache.
	if r := h.do(http.MethodGet, "/v1/meetings/"+m.ID, revoked, nil); r.status != http.StatusOK {
		t.Fatalf("GET meeting: %d %s", r.status, r.body)
	}
	gone, _ := openEvents(t, h, revoked, path)
	stay, _ := openEvents(t, h, kept, path)
	waitEvent(t, gone, "ready", func(ev streamEvent) bool { return ev.Event == "ready" })
	waitEvent(t, stay, "ready", func(ev streamEvent) bool { return ev.Event == "ready" })
	if err := h.store.RevokeAPIKey(context.Background(), revoked); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, gone, "an error event", func(ev streamEvent) bool { return ev.Event == "error" })
	var body struct {
		Error struct{ Code string } `json:"error"`
	}
	decodeEvent(t, ev, &body)
	if body.Error.Code != "unauthenticated" {
		t.Errorf("error event %s, want code unauthenticated", ev.Data)
	}
	select {
	case ev, open := <-gone:
		if open {
			t.Fatalf("event %s %s after the revocation error", ev.Event, ev.Data)
		}
	case <-time.After(eventWait):
		t.Fatal("the revoked key's stream did not end")
	}

	h.post(kept, m.ID, utterances("after", 0, 1))
	waitEvent(t, stay, "the row stored after the revocation", func(ev streamEvent) bool { return ev.Event == "transcript" })
}
