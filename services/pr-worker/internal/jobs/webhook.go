package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/webhook"
)

// QueueWebhook is the queue of webhook deliveries.
const QueueWebhook = tasks.QueueWebhook

// Events emits webhook events; *webhook.Emitter implements it. A nil
// Events emits nothing.
type Events interface {
	Emit(ctx context.Context, tenantID, event, eventID string, data any) error
}

// emit is Events.Emit on a possibly nil Events.
func emit(ctx context.Context, e Events, tenantID, event, eventID string, data any) error {
	if e == nil {
		return nil
	}
	if err := e.Emit(ctx, tenantID, event, eventID, data); err != nil {
		return fmt.Errorf("emit %s: %w", event, err)
	}
	return nil
}

// WebhookHandler runs webhook:deliver tasks: one attempt per task run;
// Asynq retries a failed attempt with backoff (tasks.RetryDelay) up to
// tasks.WebhookDeliverMaxRetry times, and the last failure marks the
// delivery failed.
type WebhookHandler struct {
	deliverer *webhook.Deliverer
	log       *slog.Logger
}

// NewWebhookHandler returns the webhook:deliver handler.
func NewWebhookHandler(d *webhook.Deliverer, log *slog.Logger) *WebhookHandler {
	return &WebhookHandler{deliverer: d, log: log}
}

// ProcessTask handles one webhook:deliver task.
func (h *WebhookHandler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := tasks.ParseWebhookDeliverTask(t.Payload())
	if err != nil {
		return errors.Join(err, asynq.SkipRetry)
	}
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, ok := asynq.GetMaxRetry(ctx)
	final := ok && retried >= maxRetry
	err = h.deliverer.Deliver(ctx, p.TenantID, p.DeliveryID, final)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound):
		// The webhook was deleted, and its deliveries with it.
		return nil
	case errors.Is(err, webhook.ErrGiveUp):
		h.log.Warn("webhook delivery abandoned", "delivery_id", p.DeliveryID, "err", err)
		return fmt.Errorf("delivery %s: %w: %w", p.DeliveryID, err, asynq.SkipRetry)
	}
	return fmt.Errorf("delivery %s (attempt %d): %w", p.DeliveryID, retried+1, err)
}
