// Package ask runs the ask path of a meeting: it brings the cached
// context up to date, waits for topics at most the L1 bound, plans the
// question, searches topics, packs the context into the model's budget,
// answers with citations and keeps the thread's checkpoint.
package ask
