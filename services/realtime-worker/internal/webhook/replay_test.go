package webhook_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/services/realtime-worker/internal/webhook"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// serveOne runs one request through h and returns the status and the
// error code of the body ("" for a 2xx).
func serveOne(t *testing.T, h http.Handler, r *http.Request) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var body struct {
		Error struct{ Code string } `json:"error"`
	}
	if w.Code >= 300 {
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("error body %q: %v", w.Body, err)
		}
	}
	return w.Code, body.Error.Code
}

// signedClaims signs body with HS256 and exactly these claims (plus the
// body's sha256), the way livekit-server does but without its defaults.
func signedClaims(t *testing.T, secret string, claims map[string]any, body []byte) *http.Request {
	t.Helper()
	sum := sha256.Sum256(body)
	claims["sha256"] = base64.StdEncoding.EncodeToString(sum[:])
	enc := base64.RawURLEncoding
	hdr, _ := json.Marshal(map[string]string{"alg": "HS256", "typ": "JWT"})
	cl, _ := json.Marshal(claims)
	msg := enc.EncodeToString(hdr) + "." + enc.EncodeToString(cl)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(msg))
	r := httptest.NewRequest(http.MethodPost, webhook.Path, bytes.NewReader(body))
	r.Header.Set("Authorization", msg+"."+enc.EncodeToString(mac.Sum(nil)))
	r.Header.Set("Content-Type", "application/webhook+json")
	return r
}

// A token must carry exp: the same token with exp is accepted, so the
// hand-made signature is not what fails.
func TestWebhookRequiresExpiry(t *testing.T) {
	now := time.Now()
	body := eventAt("room_started", "standup", "EV_exp", now)
	rec := &recorder{}
	h := webhook.New("devkey", "secret", rec, quiet)
	noExp := map[string]any{"iss": "devkey", "nbf": now.Add(-time.Minute).Unix()}
	if st, code := serveOne(t, h, signedClaims(t, "secret", noExp, body)); st != http.StatusUnauthorized || code != "unauthenticated" {
		t.Fatalf("token without exp: %d %s, want 401 unauthenticated", st, code)
	}
	withExp := map[string]any{"iss": "devkey", "nbf": now.Add(-time.Minute).Unix(), "exp": now.Add(5 * time.Minute).Unix()}
	if st, code := serveOne(t, h, signedClaims(t, "secret", withExp, body)); st != http.StatusNoContent {
		t.Fatalf("token with exp: %d %s, want 204", st, code)
	}
	if len(rec.started) != 1 {
		t.Fatalf("started %v, want one room", rec.started)
	}
}

// Events created too long ago, too far ahead or without created_at are
// refused before they reach the rooms; the edges inside the window pass.
func TestWebhookRefusesStaleEvents(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	tests := []struct {
		name    string
		created time.Time
		want    int
	}{
		{"created in 2020", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), http.StatusBadRequest},
		{"6 minutes old", now.Add(-6 * time.Minute), http.StatusBadRequest},
		{"4 minutes old", now.Add(-4 * time.Minute), http.StatusNoContent},
		{"20 s ahead", now.Add(20 * time.Second), http.StatusNoContent},
		{"2 minutes ahead", now.Add(2 * time.Minute), http.StatusBadRequest},
		{"no created_at", time.Unix(0, 0), http.StatusBadRequest},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			h := webhook.New("devkey", "secret", rec, quiet, webhook.Options{Now: clock})
			st, code := serveOne(t, h, signed(t, "devkey", "secret", eventAt("room_finished", "r", "EV_"+strconv.Itoa(i), tt.created)))
			if st != tt.want {
				t.Fatalf("status %d %s, want %d", st, code, tt.want)
			}
			if st == http.StatusBadRequest && (code != "stale_event" || len(rec.finished) != 0) {
				t.Fatalf("refused with %s, finished %v", code, rec.finished)
			}
			if st == http.StatusNoContent && len(rec.finished) != 1 {
				t.Fatalf("accepted but finished %v", rec.finished)
			}
		})
	}
}

// The same event id is refused (409) while it could still pass the age
// check, and accepted again once the window has passed; other ids pass.
func TestWebhookRefusesDuplicateEvents(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	rec := &recorder{}
	h := webhook.New("devkey", "secret", rec, quiet, webhook.Options{Now: clock, MaxAge: time.Minute, MaxSkew: 10 * time.Second})
	body := eventAt("room_finished", "주간 회의", "EV_dup", now)
	if st, code := serveOne(t, h, signed(t, "devkey", "secret", body)); st != http.StatusNoContent {
		t.Fatalf("first: %d %s", st, code)
	}
	for i := range 2 {
		if st, code := serveOne(t, h, signed(t, "devkey", "secret", body)); st != http.StatusConflict || code != "duplicate_event" {
			t.Fatalf("repeat %d: %d %s, want 409 duplicate_event", i, st, code)
		}
	}
	if st, code := serveOne(t, h, signed(t, "devkey", "secret", eventAt("room_finished", "주간 회의", "EV_other", now))); st != http.StatusNoContent {
		t.Fatalf("another id: %d %s", st, code)
	}
	if len(rec.finished) != 2 {
		t.Fatalf("finished %v, want the two distinct events", rec.finished)
	}
	// Past MaxAge+MaxSkew the id is forgotten, and a new event may reuse it.
	mu.Lock()
	now = now.Add(71 * time.Second)
	mu.Unlock()
	if st, code := serveOne(t, h, signed(t, "devkey", "secret", eventAt("room_finished", "x", "EV_dup", now))); st != http.StatusNoContent {
		t.Fatalf("the id after the window: %d %s", st, code)
	}
}

type failOnce struct {
	recorder
	failed bool
}

func (f *failOnce) Finished(ctx context.Context, room string) error {
	if !f.failed {
		f.failed = true
		return errors.New("agent-api down")
	}
	return f.recorder.Finished(ctx, room)
}

// An event that was not handled (503) may be retried with its id.
func TestWebhookRetryAfterFailureIsAccepted(t *testing.T) {
	rooms := &failOnce{}
	h := webhook.New("devkey", "secret", rooms, quiet)
	body := eventAt("room_finished", "standup", "EV_retry", time.Now())
	if st, _ := serveOne(t, h, signed(t, "devkey", "secret", body)); st != http.StatusServiceUnavailable {
		t.Fatalf("first: %d, want 503", st)
	}
	if st, code := serveOne(t, h, signed(t, "devkey", "secret", body)); st != http.StatusNoContent {
		t.Fatalf("retry: %d %s, want 204", st, code)
	}
	if len(rooms.finished) != 1 {
		t.Fatalf("finished %v", rooms.finished)
	}
}

// RedisSeen shares the ids between handlers (replicas) and gives each the
// TTL asked for.
func TestRedisSeenSharesIDs(t *testing.T) {
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	t.Cleanup(func() { _ = rc.Close() })
	ctx := context.Background()
	if err := rc.Ping(ctx).Err(); err != nil {
		t.Fatalf("redis at 127.0.0.1:6379: %v", err)
	}
	prefix := "mithub:test:webhook:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
	t.Cleanup(func() { rc.Del(ctx, prefix+"EV_r") })
	seen := webhook.RedisSeen{Client: rc, Prefix: prefix}
	rec := &recorder{}
	a := webhook.New("devkey", "secret", rec, quiet, webhook.Options{Seen: seen})
	b := webhook.New("devkey", "secret", rec, quiet, webhook.Options{Seen: seen})
	body := eventAt("room_started", "r", "EV_r", time.Now())
	if st, code := serveOne(t, a, signed(t, "devkey", "secret", body)); st != http.StatusNoContent {
		t.Fatalf("replica a: %d %s", st, code)
	}
	if st, code := serveOne(t, b, signed(t, "devkey", "secret", body)); st != http.StatusConflict || code != "duplicate_event" {
		t.Fatalf("replica b: %d %s, want 409", st, code)
	}
	ttl, err := rc.TTL(ctx, prefix+"EV_r").Result()
	if err != nil || ttl <= 5*time.Minute || ttl > webhook.DefaultMaxAge+webhook.DefaultMaxSkew {
		t.Fatalf("TTL %s (%v), want just under %s", ttl, err, webhook.DefaultMaxAge+webhook.DefaultMaxSkew)
	}
	if err := seen.Forget(ctx, "EV_r"); err != nil {
		t.Fatal(err)
	}
	if ok, err := seen.First(ctx, "EV_r", time.Minute); err != nil || !ok {
		t.Fatalf("after Forget: %v %v", ok, err)
	}
}
