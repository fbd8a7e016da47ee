-- Imported meetings and outgoing webhooks (docs/architecture.md §3, §9).

-- An imported meeting records the SHA-256 of its file's segments in
-- metadata.import_sha256: importing the same file again finds it instead
-- of creating a second meeting, even when two imports race.
CREATE UNIQUE INDEX meetings_import_key_idx ON meetings (tenant_id, (metadata->>'import_sha256'))
    WHERE metadata ? 'import_sha256';

-- A tenant's webhook endpoints. secret signs deliveries; after a rotation
-- previous_secret signs them too until previous_expires_at. A webhook is
-- disabled after too many failed attempts in a row.
CREATE TABLE webhooks (
    id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id            uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    url                  text NOT NULL CHECK (url <> ''),
    events               text[] NOT NULL,
    secret               text NOT NULL CHECK (secret <> ''),
    previous_secret      text NOT NULL DEFAULT '',
    previous_expires_at  timestamptz,
    status               text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
    consecutive_failures integer NOT NULL DEFAULT 0,
    disabled_reason      text NOT NULL DEFAULT '',
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_tenant_idx ON webhooks (tenant_id);

-- One row per (webhook, event): the delivery log, and the idempotency of
-- emitting an event twice (its id is derived from what happened).
CREATE TABLE webhook_deliveries (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id    uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    webhook_id   uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id     text NOT NULL,
    event        text NOT NULL,
    payload      jsonb NOT NULL,
    status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts     integer NOT NULL DEFAULT 0,
    last_status  integer NOT NULL DEFAULT 0,
    last_error   text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz,
    UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC);
