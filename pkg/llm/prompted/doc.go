// Package prompted implements the context engine's Segmenter and
// Summarizer with a chat model (any llm.Chatter).
//
// The Segmenter sends the first chunk of a meeting with a plain
// topic-separation prompt; later chunks get a recursive prompt that shows
// the earlier topics' titles and summaries and the previous topic with its
// last turns, and asks whether the chunk's first turns continue it. Both
// ask for JSON only:
//
//	{"continue_to": <seq or -1>, "topics": [{"start_seq", "end_seq", "title", "summary", "keywords": [...]}]}
//
// The answer is parsed with package lenient and then repaired: seqs are
// clamped to the chunk, topics ordered, overlaps cut, gaps filled with
// fallback segments titled Topic_{start}_{end}, summaries cut to one
// sentence of at most 120 characters. So every turn of a chunk is covered
// exactly once, whatever the model wrote.
//
// When the model fails (after the Chatter's own retries) or its answer
// cannot be used at all, Segment and Summarize still return a fallback
// (one segment for the whole chunk; the first turn's text as the summary)
// together with a non-nil error. The engine stores the fallback so no turn
// is left uncovered, and decides from the error whether to log it or to
// retry the chunk later.
package prompted
