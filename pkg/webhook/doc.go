// Package webhook sends a tenant's events to the URLs it registered
// (docs/architecture.md §9): the event names, the signature, the SSRF
// checks on targets, emitting an event as one delivery per subscribed
// webhook, and delivering one.
//
// Delivery is at least once: an event's id is derived from what happened
// ("pr.approved:<pr id>"), so emitting it again finds the same delivery
// rows instead of adding some, and each delivery is an Asynq task whose
// id is the delivery's. A receiver de-duplicates on the Idempotency-Key
// header (the delivery id), which stays the same on every retry.
//
// Each request carries X-MitHub-Signature: t=<unix seconds>,v1=<hex>,
// where hex is HMAC-SHA256 with the webhook's secret over "<t>.<body>".
// While a rotated secret's grace period lasts, a second v1 signed with the
// previous secret follows. Verify checks a header the way receivers should.
package webhook
