package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mithub/mithub/pkg/health"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/agent-api/internal/httpapi"
)

// clock is a settable clock shared with the rate limiter.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// secApp is agent-api's HTTP app on a real store with only the parts the
// security tests need; requests go through app.Test in memory.
type secApp struct {
	t     *testing.T
	app   *fiber.App
	store *store.Store
}

func newSecApp(t *testing.T, log *slog.Logger, tweak func(*httpapi.Deps)) *secApp {
	t.Helper()
	st := storetest.New(t)
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	d := httpapi.Deps{
		Log: log, Store: st, Metrics: httpapi.NewMetrics(prometheus.NewRegistry()),
		Registry: prometheus.NewRegistry(), BodyLimit: 1 << 20,
		Ready: map[string]health.Check{"postgres": st.Ping},
	}
	wireUseCases(&d, useCaseDeps{store: st})
	if tweak != nil {
		tweak(&d)
	}
	return &secApp{t: t, app: httpapi.New(d), store: st}
}

func (a *secApp) key(tenant string) string {
	a.t.Helper()
	k, err := a.store.CreateAPIKey(context.Background(), tenant, "test")
	if err != nil {
		a.t.Fatal(err)
	}
	return k
}

// do sends a request; header holds name/value pairs.
func (a *secApp) do(method, path, key string, body string, header ...string) *http.Response {
	a.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = bytes.NewReader([]byte(body))
	}
	req := httptest.NewRequest(method, path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := a.app.Test(req, -1)
	if err != nil {
		a.t.Fatal(err)
	}
	a.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func errorCode(t *testing.T, resp *http.Response) string {
	t.Helper()
	var body struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &body); err != nil || body.Error.Message == "" {
		t.Fatalf("status %d body %q is not an error document", resp.StatusCode, raw)
	}
	return body.Error.Code
}

func TestRateLimitPerKey(t *testing.T) {
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	a := newSecApp(t, nil, func(d *httpapi.Deps) {
		d.RateLimit = httpapi.RateLimit{RPS: 0.5, Burst: 2, Now: clk.Now}
	})
	keyA, keyB, keyA2 := a.key("tenant-a"), a.key("tenant-b"), a.key("tenant-a")

	for i := range 2 {
		if r := a.do(http.MethodGet, "/v1/meetings", keyA, ""); r.StatusCode != http.StatusOK {
			t.Fatalf("request %d of the burst: status %d", i, r.StatusCode)
		}
	}
	// Over the limit: 429 with Retry-After, and the request does nothing.
	r := a.do(http.MethodPost, "/v1/meetings", keyA, `{"title":"주간 회의 over the limit"}`)
	if r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("3rd request: status %d, want 429", r.StatusCode)
	}
	if got := r.Header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After = %q, want 2 (one token at 0.5/s)", got)
	}
	if code := errorCode(t, r); code != "rate_limited" {
		t.Errorf("error code %q, want rate_limited", code)
	}
	// Other keys, even of the same tenant, have buckets of their own.
	if r := a.do(http.MethodGet, "/v1/meetings", keyB, ""); r.StatusCode != http.StatusOK {
		t.Fatalf("key of another tenant: status %d", r.StatusCode)
	}
	if r := a.do(http.MethodGet, "/v1/meetings", keyA2, ""); r.StatusCode != http.StatusOK {
		t.Fatalf("second key of the same tenant: status %d", r.StatusCode)
	}
	// Unauthenticated routes are not limited.
	if r := a.do(http.MethodGet, "/healthz", "", ""); r.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: status %d", r.StatusCode)
	}
	clk.Advance(2 * time.Second)
	r = a.do(http.MethodGet, "/v1/meetings", keyA, "")
	if r.StatusCode != http.StatusOK {
		t.Fatalf("after 2s: status %d, want 200", r.StatusCode)
	}
	var list struct {
		Meetings []json.RawMessage `json:"meetings"`
	}
	if err := json.NewDecoder(r.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if len(list.Meetings) != 0 {
		t.Errorf("the refused POST created %d meetings", len(list.Meetings))
	}
	if r := a.do(http.MethodGet, "/v1/meetings", keyA, ""); r.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("one token came back, the next request must be refused: status %d", r.StatusCode)
	}
}

func TestRateLimitOffByDefault(t *testing.T) {
	a := newSecApp(t, nil, nil)
	key := a.key("acme")
	for i := range 50 {
		if r := a.do(http.MethodGet, "/v1/meetings", key, ""); r.StatusCode != http.StatusOK {
			t.Fatalf("request %d: status %d", i, r.StatusCode)
		}
	}
}

func TestCORS(t *testing.T) {
	a := newSecApp(t, nil, func(d *httpapi.Deps) {
		d.CORSOrigins = []string{"https://app.example.com", "https://*.mithub.dev"}
	})
	key := a.key("acme")
	tests := []struct {
		name       string
		method     string
		origin     string
		preflight  bool
		wantStatus int
		wantOrigin string
	}{
		{"allowed origin", http.MethodGet, "https://app.example.com", false, http.StatusOK, "https://app.example.com"},
		{"allowed subdomain", http.MethodGet, "https://console.mithub.dev", false, http.StatusOK, "https://console.mithub.dev"},
		{"denied origin", http.MethodGet, "https://evil.example.net", false, http.StatusOK, ""},
		{"scheme must match", http.MethodGet, "http://app.example.com", false, http.StatusOK, ""},
		{"preflight allowed", http.MethodOptions, "https://app.example.com", true, http.StatusNoContent, "https://app.example.com"},
		{"preflight denied", http.MethodOptions, "https://evil.example.net", true, http.StatusNoContent, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := []string{"Origin", tt.origin}
			k := key
			if tt.preflight {
				hdr = append(hdr, "Access-Control-Request-Method", "POST",
					"Access-Control-Request-Headers", "authorization, content-type")
				k = "" // browsers send preflights without credentials
			}
			r := a.do(tt.method, "/v1/meetings", k, "", hdr...)
			if r.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d", r.StatusCode, tt.wantStatus)
			}
			if got := r.Header.Get("Access-Control-Allow-Origin"); got != tt.wantOrigin {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tt.wantOrigin)
			}
			if r.Header.Get("Access-Control-Allow-Credentials") != "" {
				t.Error("credentials must not be allowed")
			}
			if !tt.preflight {
				return
			}
			if got := r.Header.Get("Access-Control-Allow-Headers"); !containsFold(got, "Authorization") {
				t.Errorf("Access-Control-Allow-Headers = %q, want Authorization in it", got)
			}
			if got := r.Header.Get("Access-Control-Allow-Methods"); !containsFold(got, "POST") {
				t.Errorf("Access-Control-Allow-Methods = %q, want POST in it", got)
			}
		})
	}
}

func TestNoCORSHeadersWithoutOrigins(t *testing.T) {
	a := newSecApp(t, nil, nil)
	key := a.key("acme")
	r := a.do(http.MethodGet, "/v1/meetings", key, "", "Origin", "https://app.example.com")
	if r.StatusCode != http.StatusOK {
		t.Fatalf("status %d", r.StatusCode)
	}
	for name := range r.Header {
		if len(name) > 12 && http.CanonicalHeaderKey(name[:12]) == "Access-Contr" {
			t.Errorf("CORS header %s sent with MITHUB_CORS_ORIGINS empty", name)
		}
	}
	// A preflight is an unauthenticated OPTIONS: no route, no CORS.
	r = a.do(http.MethodOptions, "/v1/meetings", "", "", "Origin", "https://app.example.com",
		"Access-Control-Request-Method", "POST")
	if r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("preflight answered with CORS headers while CORS is off")
	}
}

func containsFold(list, item string) bool {
	for _, p := range bytes.Split([]byte(list), []byte(",")) {
		if bytes.EqualFold(bytes.TrimSpace(p), []byte(item)) {
			return true
		}
	}
	return false
}
