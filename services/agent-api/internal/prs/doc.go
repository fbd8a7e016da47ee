// Package prs holds agent-api's meeting-PR use cases: generating a PR
// (de-duplicating open PRs, syncing the context, waiting for topics,
// snapshotting them, creating the PR row and enqueueing pr:generate),
// approving and rejecting it, and the memory-bank update queued when a
// meeting ends. See docs/architecture.md, "agent-api".
package prs
