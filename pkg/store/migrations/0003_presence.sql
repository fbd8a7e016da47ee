-- Presence: when participants joined and left a meeting, so a catch-up can
-- start where the asker left.
CREATE TABLE presence_events (
    tenant_id      uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    meeting_id     uuid NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
    participant_id text NOT NULL CHECK (participant_id <> ''),
    kind           text NOT NULL CHECK (kind IN ('joined', 'left')),
    -- at_ms is the offset from the meeting's start, like transcript times.
    at_ms          bigint NOT NULL CHECK (at_ms >= 0),
    created_at     timestamptz NOT NULL DEFAULT now(),
    -- A re-sent event is stored once.
    PRIMARY KEY (meeting_id, participant_id, kind, at_ms)
);
