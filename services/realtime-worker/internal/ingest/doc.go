// Package ingest persists final segments: a Writer batches them into
// PostgreSQL through pkg/store (segment ids make every write idempotent),
// appends each one to a Journal before queueing it so that a crash of the
// process loses none (the next start replays the journal), keeps them in
// a bounded on-disk Spool while the database is unreachable and drains the
// spool in order on recovery; a Pinger tells agent-api to sync a meeting,
// coalescing pings so that at most one is in flight and one pending per
// meeting.
package ingest
