package webhook

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/livekit/protocol/auth"
	"github.com/livekit/protocol/webhook"
)

// Path is where LiveKit posts its webhooks (deploy/livekit.yaml).
const Path = "/livekit/webhook"

// maxBody bounds a webhook request.
const maxBody = 1 << 20

// handleTimeout bounds the work one webhook starts.
const handleTimeout = 10 * time.Second

// Rooms is what the webhook drives.
type Rooms interface {
	// Started is called for room_started.
	Started(ctx context.Context, room string) error
	// Finished is called for room_finished.
	Finished(ctx context.Context, room string) error
}

// Handler verifies and dispatches LiveKit webhooks.
type Handler struct {
	keys  auth.KeyProvider
	rooms Rooms
	log   *slog.Logger
}

// New returns a handler that accepts webhooks signed with apiKey/apiSecret.
func New(apiKey, apiSecret string, rooms Rooms, log *slog.Logger) *Handler {
	return &Handler{keys: auth.NewSimpleKeyProvider(apiKey, apiSecret), rooms: rooms, log: log}
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "use POST")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	ev, err := webhook.ReceiveWebhookEvent(r, h.keys)
	if err != nil {
		h.log.Warn("webhook rejected", "err", err)
		writeError(w, http.StatusUnauthorized, "unauthenticated", "webhook signature or body is not valid")
		return
	}
	room := ev.GetRoom().GetName()
	if room == "" && (ev.GetEvent() == webhook.EventRoomStarted || ev.GetEvent() == webhook.EventRoomFinished) {
		writeError(w, http.StatusBadRequest, "invalid", "event has no room name")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), handleTimeout)
	defer cancel()
	switch ev.GetEvent() {
	case webhook.EventRoomStarted:
		err = h.rooms.Started(ctx, room)
	case webhook.EventRoomFinished:
		err = h.rooms.Finished(ctx, room)
	default:
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err != nil {
		h.log.Error("webhook event not handled", "event", ev.GetEvent(), "room", room, "err", err)
		writeError(w, http.StatusServiceUnavailable, "unavailable", "event not handled, retry later")
		return
	}
	h.log.Info("webhook handled", "event", ev.GetEvent(), "room", room)
	w.WriteHeader(http.StatusNoContent)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
}
