package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Event names.
const (
	MeetingEnded      = "meeting.ended"
	PRReady           = "pr.ready"
	PRApproved        = "pr.approved"
	PRRejected        = "pr.rejected"
	MemoryBankUpdated = "memory_bank.updated"
)

// Headers of a delivery.
const (
	SignatureHeader   = "X-MitHub-Signature"
	EventHeader       = "X-MitHub-Event"
	EventIDHeader     = "X-MitHub-Event-ID"
	IdempotencyHeader = "Idempotency-Key"
)

// DefaultTolerance is how far a signature's timestamp may be from the
// receiver's clock (Verify).
const DefaultTolerance = 5 * time.Minute

// Statuses of webhooks and deliveries.
const (
	Active    = "active"
	Disabled  = "disabled"
	Pending   = "pending"
	Succeeded = "succeeded"
	Failed    = "failed"
)

const (
	// MaxURLLen bounds a webhook URL.
	MaxURLLen          = 2048
	minSecretLen       = 16
	maxSecretLen       = 256
	maxEventsPerHook   = 16
	secretPrefix       = "whsec_"
	generatedSecretLen = 32
)

// Events lists every event a webhook may subscribe to.
var Events = []string{MeetingEnded, PRReady, PRApproved, PRRejected, MemoryBankUpdated}

// Webhook is one registered endpoint of a tenant.
type Webhook struct {
	ID       string
	TenantID string
	URL      string
	Events   []string
	Secret   string
	// PreviousSecret also signs deliveries until PreviousExpiresAt.
	PreviousSecret      string
	PreviousExpiresAt   *time.Time
	Status              string
	ConsecutiveFailures int
	DisabledReason      string
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// Secrets are the secrets that sign a delivery at now: the current one,
// then the previous one during its grace period.
func (w Webhook) Secrets(now time.Time) []string {
	s := []string{w.Secret}
	if w.PreviousSecret != "" && w.PreviousExpiresAt != nil && now.Before(*w.PreviousExpiresAt) {
		s = append(s, w.PreviousSecret)
	}
	return s
}

// Subscribed reports whether the webhook receives event.
func (w Webhook) Subscribed(event string) bool { return slices.Contains(w.Events, event) }

// Delivery is one event for one webhook, and its delivery log.
type Delivery struct {
	ID          string
	TenantID    string
	WebhookID   string
	EventID     string
	Event       string
	Payload     json.RawMessage
	Status      string
	Attempts    int
	LastStatus  int
	LastError   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	DeliveredAt *time.Time
}

// Attempt is the outcome of one delivery attempt.
type Attempt struct {
	OK         bool
	StatusCode int
	Error      string
	// Final: no retry follows (the delivery failed for good).
	Final bool
}

// Store is the persistence of webhooks; *store.Store implements it.
type Store interface {
	SubscribedWebhooks(ctx context.Context, tenantID, event string) ([]Webhook, error)
	CreateWebhookDelivery(ctx context.Context, tenantID, webhookID, eventID, event string, payload []byte) (Delivery, bool, error)
	WebhookDelivery(ctx context.Context, tenantID, deliveryID string) (Delivery, Webhook, error)
	// RecordWebhookAttempt logs an attempt on the delivery and the
	// webhook's failure count, disabling the webhook after disableAfter
	// failed attempts in a row (0: never); it reports whether it did.
	RecordWebhookAttempt(ctx context.Context, tenantID, deliveryID string, a Attempt, disableAfter int) (bool, error)
}

// ErrInvalid marks a webhook that breaks a rule; the message says which.
var ErrInvalid = errors.New("invalid webhook")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// CheckEvents validates a subscription list: known names, no repeats, at
// least one.
func CheckEvents(events []string) error {
	if len(events) == 0 {
		return invalidf("events must name at least one of %s", strings.Join(Events, ", "))
	}
	if len(events) > maxEventsPerHook {
		return invalidf("at most %d events", maxEventsPerHook)
	}
	seen := map[string]bool{}
	for _, e := range events {
		if !slices.Contains(Events, e) {
			return invalidf("unknown event %q (want %s)", truncate(e, 40), strings.Join(Events, ", "))
		}
		if seen[e] {
			return invalidf("event %q is listed twice", e)
		}
		seen[e] = true
	}
	return nil
}

// CheckSecret validates a secret a tenant chose: 16 to 256 printable
// ASCII characters.
func CheckSecret(s string) error {
	if len(s) < minSecretLen || len(s) > maxSecretLen {
		return invalidf("secret must be %d to %d characters", minSecretLen, maxSecretLen)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return invalidf("secret must be printable ASCII without spaces")
		}
	}
	return nil
}

// NewSecret returns a random secret: "whsec_" and 64 hex digits.
func NewSecret() string {
	b := make([]byte, generatedSecretLen)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return secretPrefix + hex.EncodeToString(b)
}

// Sign returns the X-MitHub-Signature value of body at t: one v1 per
// secret, in order.
func Sign(secrets []string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + ts)
	for _, s := range secrets {
		b.WriteString(",v1=" + signature(s, ts, body))
	}
	return b.String()
}

func signature(secret, ts string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Verification errors.
var (
	ErrNoSignature = errors.New("webhook: no valid signature header")
	ErrMismatch    = errors.New("webhook: no signature matches")
	ErrStale       = errors.New("webhook: timestamp outside the tolerance")
)

// Verify checks a received X-MitHub-Signature header against the raw
// body: some v1 must equal HMAC-SHA256(secret, "<t>.<body>") (compared in
// constant time) and t must be within tolerance of now (0: the default 5
// minutes), which bounds replays.
func Verify(header string, body []byte, secret string, tolerance time.Duration, now time.Time) error {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrNoSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrStale
	}
	want := signature(secret, ts, body)
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return ErrMismatch
}

// Envelope is the body of every delivery.
type Envelope struct {
	// ID is the event's id, the same on every retry and for every
	// webhook.
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
