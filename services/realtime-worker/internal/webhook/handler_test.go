package webhook_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"

	"github.com/mithub/mithub/services/realtime-worker/internal/webhook"
)

type recorder struct {
	mu                sync.Mutex
	started, finished []string
}

func (r *recorder) Started(_ context.Context, room string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, room)
	return nil
}

func (r *recorder) Finished(_ context.Context, room string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = append(r.finished, room)
	return nil
}

// signed builds a webhook request the way livekit-server signs it: a JWT
// of the API key whose sha256 claim is the body's checksum.
func signed(t *testing.T, key, secret string, body []byte) *http.Request {
	t.Helper()
	sum := sha256.Sum256(body)
	tok, err := auth.NewAccessToken(key, secret).SetValidFor(5 * time.Minute).
		SetSha256(base64.StdEncoding.EncodeToString(sum[:])).ToJWT()
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, webhook.Path, bytes.NewReader(body))
	r.Header.Set("Authorization", tok)
	r.Header.Set("Content-Type", "application/webhook+json")
	return r
}

func event(name, room string) []byte {
	return eventAt(name, room, "EV_1", time.Now())
}

// eventAt is an event with this id, created at.
func eventAt(name, room, id string, at time.Time) []byte {
	b, _ := json.Marshal(map[string]any{"event": name, "room": map[string]any{"name": room, "sid": "RM_1"}, "id": id,
		"createdAt": at.Unix()})
	return b
}

func TestWebhook(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := []struct {
		name         string
		req          func(t *testing.T) *http.Request
		wantStatus   int
		wantStarted  []string
		wantFinished []string
	}{
		{"room started", func(t *testing.T) *http.Request {
			return signed(t, "devkey", "secret", event("room_started", "주간 회의"))
		},
			http.StatusNoContent, []string{"주간 회의"}, nil},
		{"room finished", func(t *testing.T) *http.Request {
			return signed(t, "devkey", "secret", event("room_finished", "standup"))
		},
			http.StatusNoContent, nil, []string{"standup"}},
		{"other events are ignored", func(t *testing.T) *http.Request {
			return signed(t, "devkey", "secret", event("participant_joined", "standup"))
		}, http.StatusNoContent, nil, nil},
		{"wrong secret", func(t *testing.T) *http.Request {
			return signed(t, "devkey", "not-the-secret", event("room_started", "x"))
		},
			http.StatusUnauthorized, nil, nil},
		{"unknown key", func(t *testing.T) *http.Request { return signed(t, "otherkey", "secret", event("room_started", "x")) },
			http.StatusUnauthorized, nil, nil},
		{"body changed after signing", func(t *testing.T) *http.Request {
			r := signed(t, "devkey", "secret", event("room_started", "x"))
			r.Body = io.NopCloser(bytes.NewReader(event("room_started", "y")))
			return r
		}, http.StatusUnauthorized, nil, nil},
		{"unsigned", func(t *testing.T) *http.Request {
			return httptest.NewRequest(http.MethodPost, webhook.Path, bytes.NewReader(event("room_started", "x")))
		}, http.StatusUnauthorized, nil, nil},
		{"not json", func(t *testing.T) *http.Request { return signed(t, "devkey", "secret", []byte("{nope")) },
			http.StatusUnauthorized, nil, nil},
		{"no room name", func(t *testing.T) *http.Request { return signed(t, "devkey", "secret", event("room_started", "")) },
			http.StatusBadRequest, nil, nil},
		{"GET", func(t *testing.T) *http.Request { return httptest.NewRequest(http.MethodGet, webhook.Path, nil) },
			http.StatusMethodNotAllowed, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			h := webhook.New("devkey", "secret", rec, log)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, tt.req(t))
			if w.Code != tt.wantStatus {
				t.Errorf("status %d, want %d: %s", w.Code, tt.wantStatus, w.Body)
			}
			if w.Code >= 400 {
				var body struct {
					Error struct{ Code, Message string } `json:"error"`
				}
				if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error.Code == "" {
					t.Errorf("error body %q is not the API's error shape", w.Body)
				}
			}
			if len(rec.started) != len(tt.wantStarted) || len(rec.finished) != len(tt.wantFinished) ||
				(len(tt.wantStarted) > 0 && rec.started[0] != tt.wantStarted[0]) ||
				(len(tt.wantFinished) > 0 && rec.finished[0] != tt.wantFinished[0]) {
				t.Errorf("started %v finished %v, want %v %v", rec.started, rec.finished, tt.wantStarted, tt.wantFinished)
			}
		})
	}
}
