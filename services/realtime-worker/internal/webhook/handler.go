package webhook

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/livekit/protocol/auth"
	"github.com/livekit/protocol/livekit"
	"github.com/livekit/protocol/webhook"
	"google.golang.org/protobuf/encoding/protojson"
)

// Path is where LiveKit posts its webhooks (deploy/livekit.yaml).
const Path = "/livekit/webhook"

// maxBody bounds a webhook request.
const maxBody = 1 << 20

// handleTimeout bounds the work one webhook starts.
const handleTimeout = 10 * time.Second

// Defaults of Options.
const (
	// DefaultMaxAge is how old an event's created_at may be.
	DefaultMaxAge = 5 * time.Minute
	// DefaultMaxSkew is how far in the future created_at may be.
	DefaultMaxSkew = 30 * time.Second
)

// Rooms is what the webhook drives.
type Rooms interface {
	// Started is called for room_started.
	Started(ctx context.Context, room string) error
	// Finished is called for room_finished.
	Finished(ctx context.Context, room string) error
}

// Seen remembers the event ids already accepted.
type Seen interface {
	// First records id for ttl and reports whether it was not recorded
	// yet.
	First(ctx context.Context, id string, ttl time.Duration) (bool, error)
	// Forget drops id, so a retry of an event that was not handled is
	// accepted.
	Forget(ctx context.Context, id string) error
}

// Options tune the replay protection. Zero fields take the defaults.
type Options struct {
	// MaxAge is MITHUB_WEBHOOK_MAX_AGE (default 5m): an event whose
	// created_at is older is refused (400 stale_event).
	MaxAge time.Duration
	// MaxSkew is MITHUB_WEBHOOK_MAX_SKEW (default 30s): an event whose
	// created_at is further in the future is refused (400 stale_event).
	MaxSkew time.Duration
	// Seen records accepted event ids for MaxAge+MaxSkew; a second event
	// with the same id is refused with 409 duplicate_event (LiveKit does
	// not retry 4xx). Default: an in-process memory, enough for one
	// replica; the service passes a Redis one shared by its replicas.
	Seen Seen
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Handler verifies and dispatches LiveKit webhooks.
type Handler struct {
	keys  auth.KeyProvider
	rooms Rooms
	log   *slog.Logger
	opts  Options
}

// New returns a handler that accepts webhooks signed with apiKey/apiSecret.
func New(apiKey, apiSecret string, rooms Rooms, log *slog.Logger, opts ...Options) *Handler {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.MaxSkew <= 0 {
		o.MaxSkew = DefaultMaxSkew
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Seen == nil {
		o.Seen = newMemorySeen(o.Now)
	}
	return &Handler{keys: auth.NewSimpleKeyProvider(apiKey, apiSecret), rooms: rooms, log: log, opts: o}
}

// errNoExpiry: the token has no exp claim, so it would be valid forever.
var errNoExpiry = errors.New("token has no exp claim")

// receive verifies the request's token (signature, exp required, and the
// body's checksum) and decodes the event.
func (h *Handler) receive(r *http.Request) (*livekit.WebhookEvent, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	tok := r.Header.Get("Authorization")
	if tok == "" {
		return nil, webhook.ErrNoAuthHeader
	}
	v, err := auth.ParseAPIToken(tok)
	if err != nil {
		return nil, err
	}
	secret := h.keys.GetSecret(v.APIKey())
	if secret == "" {
		return nil, webhook.ErrSecretNotFound
	}
	claims, grants, err := v.Verify(secret)
	if err != nil {
		return nil, err
	}
	if claims.Expiry == nil {
		return nil, errNoExpiry
	}
	sum := sha256.Sum256(data)
	if subtle.ConstantTimeCompare([]byte(grants.Sha256), []byte(base64.StdEncoding.EncodeToString(sum[:]))) != 1 {
		return nil, webhook.ErrInvalidChecksum
	}
	var ev livekit.WebhookEvent
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true, AllowPartial: true}).Unmarshal(data, &ev); err != nil {
		return nil, err
	}
	return &ev, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "use POST")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	ev, err := h.receive(r)
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
	if ev.GetId() == "" {
		writeError(w, http.StatusBadRequest, "invalid", "event has no id")
		return
	}
	now := h.opts.Now()
	created := time.Unix(ev.GetCreatedAt(), 0)
	if ev.GetCreatedAt() <= 0 || created.Before(now.Add(-h.opts.MaxAge)) || created.After(now.Add(h.opts.MaxSkew)) {
		h.log.Warn("webhook refused: stale event", "event", ev.GetEvent(), "id", ev.GetId(), "created_at", ev.GetCreatedAt())
		writeError(w, http.StatusBadRequest, "stale_event",
			fmt.Sprintf("event created_at must be within %s before and %s after the server's clock", h.opts.MaxAge, h.opts.MaxSkew))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), handleTimeout)
	defer cancel()
	first, err := h.opts.Seen.First(ctx, ev.GetId(), h.opts.MaxAge+h.opts.MaxSkew)
	if err != nil {
		h.log.Error("webhook event ids unavailable", "err", err)
		writeError(w, http.StatusServiceUnavailable, "unavailable", "event not handled, retry later")
		return
	}
	if !first {
		h.log.Warn("webhook refused: duplicate event", "event", ev.GetEvent(), "id", ev.GetId())
		writeError(w, http.StatusConflict, "duplicate_event", "this event id was already received")
		return
	}
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
		// LiveKit retries with the same id: let that retry in.
		if ferr := h.opts.Seen.Forget(context.WithoutCancel(ctx), ev.GetId()); ferr != nil {
			h.log.Warn("webhook event id not forgotten", "id", ev.GetId(), "err", ferr)
		}
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

// memorySeen is a Seen in this process's memory.
type memorySeen struct {
	now func() time.Time
	mu  sync.Mutex
	ids map[string]time.Time // id -> expiry
}

func newMemorySeen(now func() time.Time) *memorySeen {
	return &memorySeen{now: now, ids: map[string]time.Time{}}
}

func (m *memorySeen) First(_ context.Context, id string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for k, exp := range m.ids {
		if !now.Before(exp) {
			delete(m.ids, k)
		}
	}
	if _, ok := m.ids[id]; ok {
		return false, nil
	}
	m.ids[id] = now.Add(ttl)
	return true, nil
}

func (m *memorySeen) Forget(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.ids, id)
	return nil
}
