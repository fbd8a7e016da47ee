// Package convmemory is MitHub's long-conversation memory (docs/architecture.md §7).
//
// A conversation — a meeting or a plain chat session — is stored as
// memory nodes: level 0 holds its turns in order; the turns are cut on
// turn boundaries into ~500-token chunks, each summarised into a level-1
// node; summaries are then merged five at a time, level by level, until
// the conversation's cover (the deepest summaries, what lower levels leave
// unmerged, and the unchunked tail) fits a target budget. Every summary
// is one unit of work, idempotent on (level, seq, children): a run that
// stops half way resumes without redoing a stored node.
//
// Units run through a Runner: Queue sends them as Asynq tasks
// (memory:summarize, memory:merge) handled by pr-worker, keeping at most
// MaxInFlight of one compression queued or running; Inline runs them on a
// bounded goroutine pool in the calling process.
//
// ShouldCompress says whether a conversation's live context is over 70%
// of the model window; Compress brings it to at most 10% (summaries plus
// the most recent turns, see Context).
package convmemory
