// Package memoryeval measures how much of a long conversation the
// long-conversation memory (pkg/convmemory, docs/architecture.md §7)
// keeps: it plants facts — Korean and English, early, middle and late —
// in a long conversation built from QMSum meeting turns, compresses it to
// a context budget, and counts the facts the context still holds beside
// baselines from the same run: the most recent turns that fit the same
// budget, the last 10% of the conversation, and the whole conversation.
package memoryeval
