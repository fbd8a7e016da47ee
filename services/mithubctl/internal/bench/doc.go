// Package bench holds mithub-lab's measurement commands. Ingest compares
// agent-api's POST utterances path end to end (HTTP, validation, token
// counting, idempotent insert, context update) against a raw pgx CopyFrom
// of the same rows into the same PostgreSQL, in one run.
package bench
