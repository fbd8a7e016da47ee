// Package openai is a client for any server that speaks the OpenAI chat
// completions and embeddings API: OpenAI itself, vLLM, Ollama, TEI, CLOVA
// Studio's compatible endpoint and others.
//
// Client implements llm.Chatter (Chat and streaming ChatStream) and the
// context engine's Embedder. Every attempt has its own timeout; failed
// attempts are retried with full-jitter exponential backoff when the
// failure is transient (HTTP 429 honouring Retry-After, 408, 5xx,
// timeouts, connection errors, a stream cut off before its first delta)
// and never when the server rejected the request (other 4xx). Errors wrap
// the sentinels of package llm and never contain the API key.
package openai
