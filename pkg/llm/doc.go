// Package llm holds the provider-neutral types of chat completion: messages,
// requests, responses with token usage, the Chatter interface, and the
// errors every provider wraps so callers can tell transient failures (rate
// limits, timeouts, an unavailable provider) from permanent ones.
//
// Implementations live in sub-packages: openai talks to any
// OpenAI-compatible server, local is the offline provider. lenient parses
// the JSON that models write, and prompted builds the context engine's
// Segmenter and Summarizer on top of a Chatter.
package llm
