package webhook_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mithub/mithub/services/realtime-worker/internal/webhook"
)

// FuzzWebhook posts fuzzed bodies to the webhook handler, signed with the
// right key or not at all. Unsigned bodies are always 401; a signed body
// is handled (204), refused as malformed (400 or 401); every refusal is
// the API's error document and starts nothing.
func FuzzWebhook(f *testing.F) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.Fuzz(func(t *testing.T, body []byte, sign bool) {
		rec := &recorder{}
		h := webhook.New("devkey", "secret", rec, log)
		var r *http.Request
		if sign {
			r = signed(t, "devkey", "secret", body)
		} else {
			r = httptest.NewRequest(http.MethodPost, webhook.Path, bytes.NewReader(body))
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch {
		case !sign && w.Code != http.StatusUnauthorized:
			t.Fatalf("unsigned body: status %d", w.Code)
		case w.Code == http.StatusNoContent:
			for _, room := range append(rec.started, rec.finished...) {
				if room == "" {
					t.Fatal("a room event without a room name was dispatched")
				}
			}
			return
		case w.Code != http.StatusBadRequest && w.Code != http.StatusUnauthorized:
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		var doc struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || doc.Error.Code == "" {
			t.Fatalf("status %d body %q is not an error document", w.Code, w.Body)
		}
		if len(rec.started)+len(rec.finished) > 0 {
			t.Fatalf("refused webhook started %v finished %v", rec.started, rec.finished)
		}
	})
}
