package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// Queue enqueues the delivery task of a delivery; pkg/tasks implements it
// over Asynq (the task id is the delivery id, so enqueueing twice is one
// task).
type Queue interface {
	EnqueueDelivery(ctx context.Context, tenantID, deliveryID string) error
}

// Emitter turns events into deliveries.
type Emitter struct {
	Store Store
	Queue Queue
	Log   *slog.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Emit records the event for every active webhook of the tenant that
// subscribes to it and queues their deliveries. eventID names what
// happened, so emitting the same event again adds nothing; a delivery
// already recorded is queued again (its task is one per delivery id), so
// an Emit that failed half way can simply be repeated.
func (e *Emitter) Emit(ctx context.Context, tenantID, event, eventID string, data any) error {
	if e == nil || e.Store == nil {
		return nil
	}
	hooks, err := e.Store.SubscribedWebhooks(ctx, tenantID, event)
	if err != nil || len(hooks) == 0 {
		return err
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("webhook event %s: %w", event, err)
	}
	now := time.Now
	if e.Now != nil {
		now = e.Now
	}
	body, err := json.Marshal(Envelope{ID: eventID, Type: event, CreatedAt: now().UTC(), Data: raw})
	if err != nil {
		return err
	}
	var errs []error
	for _, h := range hooks {
		d, _, err := e.Store.CreateWebhookDelivery(ctx, tenantID, h.ID, eventID, event, body)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if d.Status != Pending {
			continue
		}
		if err := e.Queue.EnqueueDelivery(ctx, tenantID, d.ID); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// EmitLogged is Emit for callers that must not fail because of a
// webhook: the error is logged.
func (e *Emitter) EmitLogged(ctx context.Context, tenantID, event, eventID string, data any) {
	if e == nil {
		return
	}
	if err := e.Emit(ctx, tenantID, event, eventID, data); err != nil && e.Log != nil {
		e.Log.WarnContext(ctx, "emit webhook event", "event", event, "event_id", eventID, "err", err)
	}
}

// ErrGiveUp wraps a delivery error that no retry can fix (the webhook is
// gone or disabled, or the target is forbidden).
var ErrGiveUp = errors.New("webhook delivery abandoned")

// Deliverer sends deliveries.
type Deliverer struct {
	Store  Store
	Client *http.Client
	// DisableAfter disables a webhook after this many failed attempts in
	// a row (0: never).
	DisableAfter int
	UserAgent    string
	Log          *slog.Logger
	Now          func() time.Time
}

// maxResponseRead bounds what is read of a receiver's response.
const maxResponseRead = 4 << 10

// Deliver sends one delivery once. It returns nil when the delivery is
// done (delivered now or before, or abandoned because its webhook is gone
// or disabled), an error wrapping ErrGiveUp when retrying cannot help,
// and another error to retry. final says this is the last attempt the
// queue will make: a failure then marks the delivery failed.
func (d *Deliverer) Deliver(ctx context.Context, tenantID, deliveryID string, final bool) error {
	del, hook, err := d.Store.WebhookDelivery(ctx, tenantID, deliveryID)
	if err != nil {
		return err
	}
	if del.Status != Pending || hook.Status != Active {
		return nil
	}
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(del.Payload))
	if err != nil {
		_, _ = d.Store.RecordWebhookAttempt(ctx, tenantID, deliveryID, Attempt{Error: err.Error(), Final: true}, d.DisableAfter)
		return fmt.Errorf("%w: %v", ErrGiveUp, err)
	}
	req.Header.Set("Content-Type", "application/json")
	ua := d.UserAgent
	if ua == "" {
		ua = "MitHub-Webhooks/1"
	}
	req.Header.Set("User-Agent", ua)
	req.Header.Set(EventHeader, del.Event)
	req.Header.Set(EventIDHeader, del.EventID)
	req.Header.Set(IdempotencyHeader, del.ID)
	req.Header.Set(SignatureHeader, Sign(hook.Secrets(now()), now(), del.Payload))
	resp, err := d.Client.Do(req)
	a := Attempt{Final: final}
	if err != nil {
		a.Error = err.Error()
		if errors.Is(err, ErrForbiddenTarget) {
			a.Final = true
		}
	} else {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseRead))
		resp.Body.Close()
		a.StatusCode = resp.StatusCode
		a.OK = resp.StatusCode >= 200 && resp.StatusCode < 300
		if !a.OK {
			a.Error = fmt.Sprintf("receiver answered %d", resp.StatusCode)
		}
	}
	disabled, rerr := d.Store.RecordWebhookAttempt(context.WithoutCancel(ctx), tenantID, deliveryID, a, d.DisableAfter)
	if rerr != nil && d.Log != nil {
		d.Log.WarnContext(ctx, "record webhook attempt", "delivery_id", deliveryID, "err", rerr)
	}
	if disabled && d.Log != nil {
		d.Log.WarnContext(ctx, "webhook disabled after repeated failures", "webhook_id", hook.ID, "after", d.DisableAfter)
	}
	switch {
	case a.OK:
		return nil
	case disabled || a.Final && errors.Is(err, ErrForbiddenTarget):
		return fmt.Errorf("%w: %s", ErrGiveUp, a.Error)
	}
	return errors.New(a.Error)
}
