package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mithub/mithub/pkg/webhook"
)

const webhookColumns = `id, tenant_id, url, events, secret, previous_secret, previous_expires_at, status,
	consecutive_failures, disabled_reason, created_at, updated_at`

func rowToWebhook(row pgx.CollectableRow) (webhook.Webhook, error) {
	var w webhook.Webhook
	err := row.Scan(&w.ID, &w.TenantID, &w.URL, &w.Events, &w.Secret, &w.PreviousSecret, &w.PreviousExpiresAt,
		&w.Status, &w.ConsecutiveFailures, &w.DisabledReason, &w.CreatedAt, &w.UpdatedAt)
	return w, err
}

const deliveryColumns = `id, tenant_id, webhook_id, event_id, event, payload, status, attempts, last_status,
	last_error, created_at, updated_at, delivered_at`

func rowToDelivery(row pgx.CollectableRow) (webhook.Delivery, error) {
	var d webhook.Delivery
	var payload []byte
	err := row.Scan(&d.ID, &d.TenantID, &d.WebhookID, &d.EventID, &d.Event, &payload, &d.Status, &d.Attempts,
		&d.LastStatus, &d.LastError, &d.CreatedAt, &d.UpdatedAt, &d.DeliveredAt)
	d.Payload = payload
	return d, err
}

func oneWebhook(rows pgx.Rows, err error, what string) (webhook.Webhook, error) {
	if err != nil {
		return webhook.Webhook{}, fmt.Errorf("%s: %w", what, translate(err))
	}
	w, err := pgx.CollectExactlyOneRow(rows, rowToWebhook)
	if err != nil {
		return webhook.Webhook{}, fmt.Errorf("%s: %w", what, translate(err))
	}
	return w, nil
}

// CreateWebhook registers an active webhook for the tenant.
func (s *Store) CreateWebhook(ctx context.Context, tenantID, url string, events []string, secret string) (webhook.Webhook, error) {
	rows, err := s.pool.Query(ctx, `INSERT INTO webhooks (tenant_id, url, events, secret) VALUES ($1, $2, $3, $4)
		RETURNING `+webhookColumns, tenantID, url, events, secret)
	return oneWebhook(rows, err, "create webhook")
}

// Webhooks lists the tenant's webhooks, oldest first.
func (s *Store) Webhooks(ctx context.Context, tenantID string) ([]webhook.Webhook, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE tenant_id = $1 ORDER BY created_at, id`, tenantID)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", translate(err))
	}
	ws, err := pgx.CollectRows(rows, rowToWebhook)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", translate(err))
	}
	return ws, nil
}

// Webhook returns the tenant's webhook; another tenant's is ErrNotFound.
func (s *Store) Webhook(ctx context.Context, tenantID, id string) (webhook.Webhook, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = $1 AND tenant_id = $2`, id, tenantID)
	return oneWebhook(rows, err, "get webhook")
}

// DeleteWebhook removes the tenant's webhook and its delivery log.
func (s *Store) DeleteWebhook(ctx context.Context, tenantID, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM webhooks WHERE id = $1 AND tenant_id = $2`, id, tenantID)
	if err != nil {
		return fmt.Errorf("delete webhook: %w", translate(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete webhook: %w", ErrNotFound)
	}
	return nil
}

// RotateWebhookSecret makes secret the webhook's secret; the old one keeps
// signing deliveries (as a second v1) for grace.
func (s *Store) RotateWebhookSecret(ctx context.Context, tenantID, id, secret string, grace time.Duration) (webhook.Webhook, error) {
	rows, err := s.pool.Query(ctx, `UPDATE webhooks SET previous_secret = secret, secret = $3,
			previous_expires_at = now() + $4 * interval '1 millisecond', updated_at = now()
		WHERE id = $1 AND tenant_id = $2 RETURNING `+webhookColumns, id, tenantID, secret, grace.Milliseconds())
	return oneWebhook(rows, err, "rotate webhook secret")
}

// EnableWebhook makes a disabled webhook active again with its failure
// count reset.
func (s *Store) EnableWebhook(ctx context.Context, tenantID, id string) (webhook.Webhook, error) {
	rows, err := s.pool.Query(ctx, `UPDATE webhooks SET status = 'active', consecutive_failures = 0,
			disabled_reason = '', updated_at = now()
		WHERE id = $1 AND tenant_id = $2 RETURNING `+webhookColumns, id, tenantID)
	return oneWebhook(rows, err, "enable webhook")
}

// SubscribedWebhooks lists the tenant's active webhooks that receive
// event.
func (s *Store) SubscribedWebhooks(ctx context.Context, tenantID, event string) ([]webhook.Webhook, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+webhookColumns+` FROM webhooks
		WHERE tenant_id = $1 AND status = 'active' AND $2 = ANY(events) ORDER BY created_at, id`, tenantID, event)
	if err != nil {
		return nil, fmt.Errorf("subscribed webhooks: %w", translate(err))
	}
	ws, err := pgx.CollectRows(rows, rowToWebhook)
	if err != nil {
		return nil, fmt.Errorf("subscribed webhooks: %w", translate(err))
	}
	return ws, nil
}

// CreateWebhookDelivery records the event for the webhook, or returns the
// delivery recorded before for the same event id (created false).
func (s *Store) CreateWebhookDelivery(ctx context.Context, tenantID, webhookID, eventID, event string, payload []byte) (webhook.Delivery, bool, error) {
	rows, err := s.pool.Query(ctx, `INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, payload)
		SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = $2 AND tenant_id = $1)
		ON CONFLICT (webhook_id, event_id) DO NOTHING
		RETURNING `+deliveryColumns, tenantID, webhookID, eventID, event, payload)
	if err != nil {
		return webhook.Delivery{}, false, fmt.Errorf("create webhook delivery: %w", translate(err))
	}
	ds, err := pgx.CollectRows(rows, rowToDelivery)
	if err != nil {
		return webhook.Delivery{}, false, fmt.Errorf("create webhook delivery: %w", translate(err))
	}
	if len(ds) == 1 {
		return ds[0], true, nil
	}
	rows, err = s.pool.Query(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries
		WHERE webhook_id = $1 AND event_id = $2 AND tenant_id = $3`, webhookID, eventID, tenantID)
	if err != nil {
		return webhook.Delivery{}, false, fmt.Errorf("find webhook delivery: %w", translate(err))
	}
	d, err := pgx.CollectExactlyOneRow(rows, rowToDelivery)
	if err != nil {
		return webhook.Delivery{}, false, fmt.Errorf("find webhook delivery: %w", translate(err))
	}
	return d, false, nil
}

// WebhookDelivery returns the tenant's delivery and its webhook.
func (s *Store) WebhookDelivery(ctx context.Context, tenantID, deliveryID string) (webhook.Delivery, webhook.Webhook, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE id = $1 AND tenant_id = $2`,
		deliveryID, tenantID)
	if err != nil {
		return webhook.Delivery{}, webhook.Webhook{}, fmt.Errorf("get webhook delivery: %w", translate(err))
	}
	d, err := pgx.CollectExactlyOneRow(rows, rowToDelivery)
	if err != nil {
		return webhook.Delivery{}, webhook.Webhook{}, fmt.Errorf("get webhook delivery: %w", translate(err))
	}
	w, err := s.Webhook(ctx, tenantID, d.WebhookID)
	return d, w, err
}

// WebhookDeliveries is the webhook's delivery log, newest first.
func (s *Store) WebhookDeliveries(ctx context.Context, tenantID, webhookID string, limit int) ([]webhook.Delivery, error) {
	if limit <= 0 || limit > 1000 {
		limit = 100
	}
	rows, err := s.pool.Query(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries
		WHERE webhook_id = $1 AND tenant_id = $2 ORDER BY created_at DESC, id LIMIT $3`, webhookID, tenantID, limit)
	if err != nil {
		return nil, fmt.Errorf("list webhook deliveries: %w", translate(err))
	}
	ds, err := pgx.CollectRows(rows, rowToDelivery)
	if err != nil {
		return nil, fmt.Errorf("list webhook deliveries: %w", translate(err))
	}
	return ds, nil
}

// RecordWebhookAttempt logs one attempt: the delivery's count, status and
// last outcome, and the webhook's failures in a row (reset by a success),
// disabling it when they reach disableAfter (0: never). A pending
// delivery becomes succeeded, or failed when a.Final; it reports whether
// this attempt disabled the webhook.
func (s *Store) RecordWebhookAttempt(ctx context.Context, tenantID, deliveryID string, a webhook.Attempt, disableAfter int) (bool, error) {
	status := webhook.Pending
	switch {
	case a.OK:
		status = webhook.Succeeded
	case a.Final:
		status = webhook.Failed
	}
	var disabled bool
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var webhookID string
		err := tx.QueryRow(ctx, `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = $3, last_error = $4,
				status = CASE WHEN status = 'pending' THEN $5 ELSE status END,
				delivered_at = CASE WHEN $5 = 'succeeded' THEN coalesce(delivered_at, now()) ELSE delivered_at END,
				updated_at = now()
			WHERE id = $1 AND tenant_id = $2 RETURNING webhook_id`,
			deliveryID, tenantID, a.StatusCode, truncateText(a.Error, 1024), status).Scan(&webhookID)
		if err != nil {
			return err
		}
		if a.OK {
			_, err = tx.Exec(ctx, `UPDATE webhooks SET consecutive_failures = 0 WHERE id = $1 AND consecutive_failures <> 0`, webhookID)
			return err
		}
		return tx.QueryRow(ctx, `UPDATE webhooks SET consecutive_failures = consecutive_failures + 1,
				status = CASE WHEN $2 > 0 AND consecutive_failures + 1 >= $2 THEN 'disabled' ELSE status END,
				disabled_reason = CASE WHEN $2 > 0 AND consecutive_failures + 1 >= $2 AND status = 'active'
					THEN $3 ELSE disabled_reason END,
				updated_at = now()
			WHERE id = $1
			RETURNING status = 'disabled' AND disabled_reason = $3 AND consecutive_failures = $2`,
			webhookID, disableAfter, fmt.Sprintf("%d failed attempts in a row; last: %s", disableAfter, truncateText(a.Error, 200))).Scan(&disabled)
	})
	if err != nil {
		return false, fmt.Errorf("record webhook attempt: %w", translate(err))
	}
	return disabled, nil
}

func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
