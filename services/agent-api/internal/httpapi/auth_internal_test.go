package httpapi

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/store"
)

// countingAuth knows one key and counts the lookups that reach it.
type countingAuth struct {
	mu      sync.Mutex
	valid   string
	lookups int
}

func (a *countingAuth) Authenticate(_ context.Context, key string) (store.Tenant, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lookups++
	if key == a.valid {
		return store.Tenant{ID: "t1", Name: "acme"}, nil
	}
	return store.Tenant{}, store.ErrUnauthenticated
}

func (a *countingAuth) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lookups
}

// authServer serves the authenticator in front of one route on loopback.
func authServer(t *testing.T, st Authenticator, failures RateLimit) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := newAuthenticator(st, failures)
	app := fiber.New(fiber.Config{DisableStartupMessage: true, ErrorHandler: errorHandler(discardLog())})
	app.Get("/v1/x", a.middleware, func(c *fiber.Ctx) error { return c.SendString(tenantOf(c).Name) })
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String() + "/v1/x"
}

// clientFrom sends requests from the loopback address src.
func clientFrom(src string) *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}).DialContext,
	}}
}

func get(t *testing.T, c *http.Client, url, key string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp
}

// A flood of one invalid key reaches the store once per invalidKeyTTL.
func TestInvalidKeyIsCachedNegatively(t *testing.T) {
	st := &countingAuth{valid: "mh_good"}
	url := authServer(t, st, RateLimit{})
	c := clientFrom("127.0.0.1")
	for i := range 200 {
		if resp := get(t, c, url, "mh_bad"); resp.StatusCode != 401 {
			t.Fatalf("request %d: status %d, want 401", i, resp.StatusCode)
		}
	}
	if got := st.count(); got != 1 {
		t.Fatalf("200 requests with one invalid key made %d store lookups, want 1", got)
	}
	for range 5 {
		if resp := get(t, c, url, "mh_good"); resp.StatusCode != 200 {
			t.Fatalf("valid key: status %d", resp.StatusCode)
		}
	}
	if got := st.count(); got != 2 {
		t.Fatalf("store lookups = %d after the valid key, want 2", got)
	}
}

// Distinct invalid keys from one address reach the store at most burst
// times; then the address gets 429 with Retry-After, without lookups,
// while another address and already-validated keys are unaffected.
func TestFailedAuthLimitedPerAddress(t *testing.T) {
	const burst = 30
	st := &countingAuth{valid: "mh_good"}
	url := authServer(t, st, RateLimit{RPS: 0.01, Burst: burst})
	attacker, other := clientFrom("127.0.0.5"), clientFrom("127.0.0.6")
	// The legitimate key is validated (and cached) before the flood.
	if resp := get(t, attacker, url, "mh_good"); resp.StatusCode != 200 {
		t.Fatalf("valid key: %d", resp.StatusCode)
	}
	var limited int
	for i := range 200 {
		resp := get(t, attacker, url, "mh_bad_"+strconv.Itoa(i))
		switch resp.StatusCode {
		case 401:
		case 429:
			limited++
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 {
				t.Fatalf("429 without a Retry-After in seconds: %q", resp.Header.Get("Retry-After"))
			}
		default:
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
	}
	if got := st.count(); got != 1+burst {
		t.Errorf("store lookups = %d, want %d (the valid key and the burst)", got, 1+burst)
	}
	if limited != 200-burst {
		t.Errorf("429s = %d, want %d", limited, 200-burst)
	}
	if resp := get(t, attacker, url, ""); resp.StatusCode != 429 {
		t.Errorf("missing key from the limited address: %d, want 429", resp.StatusCode)
	}
	if resp := get(t, attacker, url, "mh_good"); resp.StatusCode != 200 {
		t.Errorf("cached valid key from the limited address: %d, want 200", resp.StatusCode)
	}
	if resp := get(t, other, url, "mh_bad_other"); resp.StatusCode != 401 {
		t.Errorf("another address: %d, want 401", resp.StatusCode)
	}
}

func TestPeekDoesNotSpend(t *testing.T) {
	now := time.Unix(0, 0)
	l := newRateLimiter(RateLimit{RPS: 1, Burst: 1, Now: func() time.Time { return now }})
	for range 3 {
		if ok, _ := l.peek("a"); !ok {
			t.Fatal("peek on a full bucket said no")
		}
	}
	if ok, _, _ := l.take("a"); !ok {
		t.Fatal("take after peeks failed")
	}
	if ok, wait := l.peek("a"); ok || wait != time.Second {
		t.Fatalf("peek on an empty bucket: %v %v", ok, wait)
	}
	now = now.Add(time.Second)
	if ok, _ := l.peek("a"); !ok {
		t.Fatal("peek after refill said no")
	}
}
