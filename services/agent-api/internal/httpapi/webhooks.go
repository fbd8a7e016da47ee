package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/webhook"
)

// WebhookStore is the persistence of the webhook routes; *store.Store
// implements it.
type WebhookStore interface {
	CreateWebhook(ctx context.Context, tenantID, url string, events []string, secret string) (webhook.Webhook, error)
	Webhooks(ctx context.Context, tenantID string) ([]webhook.Webhook, error)
	Webhook(ctx context.Context, tenantID, id string) (webhook.Webhook, error)
	DeleteWebhook(ctx context.Context, tenantID, id string) error
	RotateWebhookSecret(ctx context.Context, tenantID, id, secret string, grace time.Duration) (webhook.Webhook, error)
	EnableWebhook(ctx context.Context, tenantID, id string) (webhook.Webhook, error)
	WebhookDeliveries(ctx context.Context, tenantID, webhookID string, limit int) ([]webhook.Delivery, error)
}

// maxWebhooksPerTenant bounds a tenant's webhooks.
const maxWebhooksPerTenant = 50

type webhookRequest struct {
	URL    string   `json:"url"`
	Events []string `json:"events"`
	// Secret is optional: one is generated when it is empty.
	Secret string `json:"secret"`
}

type rotateRequest struct {
	Secret string `json:"secret"`
}

type webhookJSON struct {
	ID                  string    `json:"id"`
	URL                 string    `json:"url"`
	Events              []string  `json:"events"`
	Status              string    `json:"status"`
	ConsecutiveFailures int       `json:"consecutive_failures"`
	DisabledReason      string    `json:"disabled_reason"`
	CreatedAt           time.Time `json:"created_at"`
	UpdatedAt           time.Time `json:"updated_at"`
	// Secret is answered only by create and rotate-secret.
	Secret string `json:"secret,omitempty"`
	// PreviousSecretExpiresAt: until then the previous secret signs too.
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at,omitempty"`
}

func toWebhookJSON(w webhook.Webhook, withSecret bool) webhookJSON {
	out := webhookJSON{ID: w.ID, URL: w.URL, Events: w.Events, Status: w.Status, ConsecutiveFailures: w.ConsecutiveFailures,
		DisabledReason: w.DisabledReason, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
	if w.PreviousSecret != "" && w.PreviousExpiresAt != nil && time.Now().Before(*w.PreviousExpiresAt) {
		out.PreviousSecretExpiresAt = w.PreviousExpiresAt
	}
	if withSecret {
		out.Secret = w.Secret
	}
	return out
}

type deliveryJSON struct {
	ID          string          `json:"id"`
	EventID     string          `json:"event_id"`
	Event       string          `json:"event"`
	Status      string          `json:"status"`
	Attempts    int             `json:"attempts"`
	LastStatus  int             `json:"last_status"`
	LastError   string          `json:"last_error"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
	DeliveredAt *time.Time      `json:"delivered_at"`
	Payload     json.RawMessage `json:"payload"`
}

func (s *Server) webhookRoutes(v1 fiber.Router) {
	v1.Post("/webhooks", s.createWebhook)
	v1.Get("/webhooks", s.listWebhooks)
	v1.Get("/webhooks/:id", s.getWebhook)
	v1.Delete("/webhooks/:id", s.deleteWebhook)
	v1.Post("/webhooks/:id/rotate-secret", s.rotateWebhookSecret)
	v1.Post("/webhooks/:id/enable", s.enableWebhook)
	v1.Get("/webhooks/:id/deliveries", s.listWebhookDeliveries)
}

func (s *Server) webhooks() (WebhookStore, error) {
	if s.Webhooks == nil {
		return nil, errUnavailable("webhooks are not configured on this server")
	}
	return s.Webhooks, nil
}

// webhookOf is the store and the webhook id of a /v1/webhooks/{id} route.
func (s *Server) webhookOf(c *fiber.Ctx) (WebhookStore, string, error) {
	ws, err := s.webhooks()
	if err != nil {
		return nil, "", err
	}
	id, err := webhookIDParam(c)
	if err != nil {
		return nil, "", err
	}
	return ws, id, nil
}

func webhookIDParam(c *fiber.Ctx) (string, error) {
	raw := c.Params("id")
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return "", errInvalid("webhook id %q is not a UUID", truncate(raw, 64))
	}
	return id.String(), nil
}

func webhookErr(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errNotFound("webhook")
	case errors.Is(err, webhook.ErrInvalid), errors.Is(err, webhook.ErrForbiddenTarget):
		return errInvalid("%s", err.Error())
	}
	return err
}

// createWebhook registers a webhook → 201 with its secret (generated
// when none is given), the only time it is shown besides a rotation.
func (s *Server) createWebhook(c *fiber.Ctx) error {
	ws, err := s.webhooks()
	if err != nil {
		return err
	}
	var req webhookRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	if err := webhook.CheckURL(req.URL, s.WebhookConfig.AllowPrivate); err != nil {
		return webhookErr(err)
	}
	if err := webhook.CheckEvents(req.Events); err != nil {
		return webhookErr(err)
	}
	if req.Secret == "" {
		req.Secret = webhook.NewSecret()
	} else if err := webhook.CheckSecret(req.Secret); err != nil {
		return webhookErr(err)
	}
	ctx, tenant := c.UserContext(), tenantOf(c).ID
	existing, err := ws.Webhooks(ctx, tenant)
	if err != nil {
		return err
	}
	if len(existing) >= maxWebhooksPerTenant {
		return &apiError{Status: fiber.StatusConflict, Code: codeConflict,
			Message: "a tenant may register at most " + strconv.Itoa(maxWebhooksPerTenant) + " webhooks"}
	}
	w, err := ws.CreateWebhook(ctx, tenant, req.URL, req.Events, req.Secret)
	if err != nil {
		return webhookErr(err)
	}
	c.Location("/v1/webhooks/" + w.ID)
	return c.Status(fiber.StatusCreated).JSON(toWebhookJSON(w, true))
}

func (s *Server) listWebhooks(c *fiber.Ctx) error {
	ws, err := s.webhooks()
	if err != nil {
		return err
	}
	list, err := ws.Webhooks(c.UserContext(), tenantOf(c).ID)
	if err != nil {
		return err
	}
	out := struct {
		Webhooks []webhookJSON `json:"webhooks"`
	}{Webhooks: make([]webhookJSON, len(list))}
	for i, w := range list {
		out.Webhooks[i] = toWebhookJSON(w, false)
	}
	return c.JSON(out)
}

func (s *Server) getWebhook(c *fiber.Ctx) error {
	ws, id, err := s.webhookOf(c)
	if err != nil {
		return err
	}
	w, err := ws.Webhook(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return webhookErr(err)
	}
	return c.JSON(toWebhookJSON(w, false))
}

func (s *Server) deleteWebhook(c *fiber.Ctx) error {
	ws, id, err := s.webhookOf(c)
	if err != nil {
		return err
	}
	if err := ws.DeleteWebhook(c.UserContext(), tenantOf(c).ID, id); err != nil {
		return webhookErr(err)
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// rotateWebhookSecret sets a new secret (given, or generated); the old
// one keeps signing, as a second v1, for MITHUB_WEBHOOK_SECRET_GRACE.
func (s *Server) rotateWebhookSecret(c *fiber.Ctx) error {
	ws, id, err := s.webhookOf(c)
	if err != nil {
		return err
	}
	var req rotateRequest
	if err := decodeJSON(c, &req, true); err != nil {
		return err
	}
	if req.Secret == "" {
		req.Secret = webhook.NewSecret()
	} else if err := webhook.CheckSecret(req.Secret); err != nil {
		return webhookErr(err)
	}
	w, err := ws.RotateWebhookSecret(c.UserContext(), tenantOf(c).ID, id, req.Secret, s.WebhookConfig.SecretGrace)
	if err != nil {
		return webhookErr(err)
	}
	return c.JSON(toWebhookJSON(w, true))
}

// enableWebhook re-activates a webhook disabled after failures.
func (s *Server) enableWebhook(c *fiber.Ctx) error {
	ws, id, err := s.webhookOf(c)
	if err != nil {
		return err
	}
	if err := decodeJSON(c, &struct{}{}, true); err != nil {
		return err
	}
	w, err := ws.EnableWebhook(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return webhookErr(err)
	}
	return c.JSON(toWebhookJSON(w, false))
}

// listWebhookDeliveries is the webhook's delivery log, newest first
// (?limit=, default 100, at most 1000).
func (s *Server) listWebhookDeliveries(c *fiber.Ctx) error {
	ws, id, err := s.webhookOf(c)
	if err != nil {
		return err
	}
	limit := 100
	if raw := c.Query("limit"); raw != "" {
		if limit, err = strconv.Atoi(raw); err != nil || limit < 1 || limit > 1000 {
			return errInvalid("query parameter limit must be an integer from 1 to 1000")
		}
	}
	ctx, tenant := c.UserContext(), tenantOf(c).ID
	if _, err := ws.Webhook(ctx, tenant, id); err != nil {
		return webhookErr(err)
	}
	list, err := ws.WebhookDeliveries(ctx, tenant, id, limit)
	if err != nil {
		return err
	}
	out := struct {
		WebhookID  string         `json:"webhook_id"`
		Deliveries []deliveryJSON `json:"deliveries"`
	}{WebhookID: id, Deliveries: make([]deliveryJSON, len(list))}
	for i, d := range list {
		out.Deliveries[i] = deliveryJSON{ID: d.ID, EventID: d.EventID, Event: d.Event, Status: d.Status, Attempts: d.Attempts,
			LastStatus: d.LastStatus, LastError: d.LastError, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
			DeliveredAt: d.DeliveredAt, Payload: d.Payload}
	}
	return c.JSON(out)
}
