// Package store is MitHub's PostgreSQL layer: a pgx/v5 pool, the embedded
// schema migrations for the whole data model, and tenant-scoped
// repositories. Callers never import pgx: errors come back as the kinds of
// package errdefs (errors.go).
//
// The domain packages declare their records and the persistence they need,
// and Store implements it: membank.Store (memory banks),
// conversation.Store (long-conversation memory) and meetingpr.Store
// (meeting PRs). Meetings, transcripts, topics, tenants and API keys are
// this package's own rows, read by the services through interfaces they
// declare.
//
// Transcripts are the single source of truth. Ingest is idempotent on
// (meeting_id, segment_id) and assigns each meeting's 0-based seq in arrival
// order, without gaps or duplicates even under concurrent writers, by
// serialising writers of one meeting on its row lock.
package store
