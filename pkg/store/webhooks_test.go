package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/webhook"
)

func TestWebhookDeliveriesAreIdempotentAndDisable(t *testing.T) {
	s := storetest.New(t)
	ctx := t.Context()
	tn, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := s.EnsureTenant(ctx, "globex")
	w, err := s.CreateWebhook(ctx, tn.ID, "https://hooks.example.com/a", []string{webhook.PRApproved, webhook.MeetingEnded}, "whsec_0123456789abcdef")
	if err != nil || w.Status != webhook.Active {
		t.Fatalf("create = %+v %v", w, err)
	}
	if _, err := s.CreateWebhook(ctx, tn.ID, "https://hooks.example.com/b", []string{webhook.PRReady}, "whsec_0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	subs, err := s.SubscribedWebhooks(ctx, tn.ID, webhook.PRApproved)
	if err != nil || len(subs) != 1 || subs[0].ID != w.ID {
		t.Fatalf("subscribed to pr.approved = %+v %v", subs, err)
	}
	if subs, _ := s.SubscribedWebhooks(ctx, other.ID, webhook.PRApproved); len(subs) != 0 {
		t.Fatal("another tenant sees the webhook")
	}
	d1, created, err := s.CreateWebhookDelivery(ctx, tn.ID, w.ID, "pr.approved:1", webhook.PRApproved, []byte(`{"a":1}`))
	if err != nil || !created || d1.Status != webhook.Pending {
		t.Fatalf("delivery = %+v %v %v", d1, created, err)
	}
	d2, created, err := s.CreateWebhookDelivery(ctx, tn.ID, w.ID, "pr.approved:1", webhook.PRApproved, []byte(`{"a":2}`))
	if err != nil || created || d2.ID != d1.ID {
		t.Fatalf("same event again = %+v %v %v, want the first delivery", d2, created, err)
	}
	if _, _, err := s.CreateWebhookDelivery(ctx, other.ID, w.ID, "pr.approved:2", webhook.PRApproved, []byte(`{}`)); err == nil {
		t.Fatal("another tenant recorded a delivery on the webhook")
	}

	// Two failures, then a success: succeeded after 3 attempts, failures reset.
	for i, a := range []webhook.Attempt{{StatusCode: 500, Error: "receiver answered 500"}, {Error: "timeout"}, {OK: true, StatusCode: 200}} {
		if disabled, err := s.RecordWebhookAttempt(ctx, tn.ID, d1.ID, a, 3); err != nil || disabled {
			t.Fatalf("attempt %d: disabled=%v err=%v", i, disabled, err)
		}
	}
	d, hook, err := s.WebhookDelivery(ctx, tn.ID, d1.ID)
	if err != nil || d.Status != webhook.Succeeded || d.Attempts != 3 || d.DeliveredAt == nil || hook.ConsecutiveFailures != 0 {
		t.Fatalf("after success: %+v %+v %v", d, hook, err)
	}
	if _, _, err := s.WebhookDelivery(ctx, other.ID, d1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another tenant's delivery: %v", err)
	}

	// Three failures in a row disable it.
	d3, _, _ := s.CreateWebhookDelivery(ctx, tn.ID, w.ID, "meeting.ended:1", webhook.MeetingEnded, []byte(`{}`))
	var disabledAt int
	for i := 1; i <= 3; i++ {
		disabled, err := s.RecordWebhookAttempt(ctx, tn.ID, d3.ID, webhook.Attempt{StatusCode: 503, Error: "down", Final: i == 3}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if disabled {
			disabledAt = i
		}
	}
	hook, _ = s.Webhook(ctx, tn.ID, w.ID)
	if disabledAt != 3 || hook.Status != webhook.Disabled || hook.DisabledReason == "" {
		t.Fatalf("disabled at attempt %d, webhook %+v", disabledAt, hook)
	}
	if subs, _ := s.SubscribedWebhooks(ctx, tn.ID, webhook.PRApproved); len(subs) != 0 {
		t.Fatal("a disabled webhook is still subscribed")
	}
	log, err := s.WebhookDeliveries(ctx, tn.ID, w.ID, 10)
	if err != nil || len(log) != 2 || log[0].ID != d3.ID || log[0].Status != webhook.Failed {
		t.Fatalf("delivery log = %+v %v", log, err)
	}
	if hook, err = s.EnableWebhook(ctx, tn.ID, w.ID); err != nil || hook.Status != webhook.Active || hook.ConsecutiveFailures != 0 {
		t.Fatalf("enable = %+v %v", hook, err)
	}

	// Rotation keeps the old secret for the grace period.
	hook, err = s.RotateWebhookSecret(ctx, tn.ID, w.ID, "whsec_fedcba9876543210", time.Hour)
	if err != nil || hook.Secret != "whsec_fedcba9876543210" || hook.PreviousSecret != "whsec_0123456789abcdef" || len(hook.Secrets(time.Now())) != 2 {
		t.Fatalf("rotate = %+v %v", hook, err)
	}
	if err := s.DeleteWebhook(ctx, other.ID, w.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another tenant deleted it: %v", err)
	}
	if err := s.DeleteWebhook(ctx, tn.ID, w.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.WebhookDelivery(ctx, tn.ID, d1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delivery of a deleted webhook: %v", err)
	}
}
