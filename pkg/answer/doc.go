// Package answer answers questions about a meeting: it plans the question
// (follow-ups resolved against the thread's previous exchange), packs the
// meeting's context into the model's token budget in a fixed priority
// order, and answers with citations of transcript turns, either
// extractively (the offline local provider) or with a chat model.
package answer
