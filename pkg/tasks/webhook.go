package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// TypeWebhookDeliver sends one webhook delivery (pkg/webhook).
const TypeWebhookDeliver = "webhook:deliver"

// QueueWebhook is the queue webhook deliveries go to.
const QueueWebhook = "webhook"

// Options of webhook:deliver tasks: with RetryDelay, 12 retries span
// about half an hour (1 s, 2 s, 4 s, … capped at 5 minutes).
const (
	WebhookDeliverMaxRetry  = 12
	WebhookDeliverTimeout   = time.Minute
	WebhookDeliverRetention = time.Hour
)

// WebhookDeliverTask is the payload of a webhook:deliver task (JSON).
type WebhookDeliverTask struct {
	TenantID   string `json:"tenant_id"`
	DeliveryID string `json:"delivery_id"`
}

// WebhookDeliverTaskID is the task id of a delivery: one task per
// delivery, so queueing it again while Redis knows it adds nothing.
func WebhookDeliverTaskID(deliveryID string) string { return "webhook:" + deliveryID }

// NewWebhookDeliverTask returns the webhook:deliver task of p, in the
// webhook queue. opts are applied after the defaults.
func NewWebhookDeliverTask(p WebhookDeliverTask, opts ...asynq.Option) (*asynq.Task, error) {
	return newWebhookDeliverTask(context.Background(), p, opts...)
}

func newWebhookDeliverTask(ctx context.Context, p WebhookDeliverTask, opts ...asynq.Option) (*asynq.Task, error) {
	if err := checkWebhookDeliver(p); err != nil {
		return nil, err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode %s payload: %w", TypeWebhookDeliver, err)
	}
	opts = append([]asynq.Option{
		asynq.TaskID(WebhookDeliverTaskID(p.DeliveryID)),
		asynq.Queue(QueueWebhook),
		asynq.MaxRetry(WebhookDeliverMaxRetry),
		asynq.Timeout(WebhookDeliverTimeout),
		asynq.Retention(WebhookDeliverRetention),
	}, opts...)
	return newTask(ctx, TypeWebhookDeliver, b, opts), nil
}

// ParseWebhookDeliverTask decodes a webhook:deliver payload.
func ParseWebhookDeliverTask(payload []byte) (WebhookDeliverTask, error) {
	var p WebhookDeliverTask
	if err := json.Unmarshal(payload, &p); err != nil {
		return p, fmt.Errorf("decode %s payload: %w: %v", TypeWebhookDeliver, ErrInvalidPayload, err)
	}
	return p, checkWebhookDeliver(p)
}

func checkWebhookDeliver(p WebhookDeliverTask) error {
	if !isUUID(p.TenantID) || !isUUID(p.DeliveryID) {
		return fmt.Errorf("%s payload: %w: tenant_id and delivery_id must be UUIDs", TypeWebhookDeliver, ErrInvalidPayload)
	}
	return nil
}

// Enqueuer is what queues tasks; *asynq.Client implements it.
type Enqueuer interface {
	EnqueueContext(ctx context.Context, task *asynq.Task, opts ...asynq.Option) (*asynq.TaskInfo, error)
}

// WebhookQueue queues webhook deliveries on Asynq (webhook.Queue).
type WebhookQueue struct{ Client Enqueuer }

// EnqueueDelivery queues the delivery's task; a task Redis already holds
// for it is success.
func (q WebhookQueue) EnqueueDelivery(ctx context.Context, tenantID, deliveryID string) error {
	t, err := newWebhookDeliverTask(ctx, WebhookDeliverTask{TenantID: tenantID, DeliveryID: deliveryID})
	if err != nil {
		return err
	}
	if _, err := q.Client.EnqueueContext(ctx, t); err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("enqueue %s: %w", TypeWebhookDeliver, err)
	}
	return nil
}
