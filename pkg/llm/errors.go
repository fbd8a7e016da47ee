package llm

import "errors"

// Errors providers wrap (test with errors.Is). The first four are
// transient: the same request may succeed later. ErrPermanent is not.
var (
	// ErrRateLimited means the provider refused the request because of a
	// rate limit (HTTP 429).
	ErrRateLimited = errors.New("llm: rate limited")
	// ErrTimeout means no answer came in time (an attempt's timeout, HTTP
	// 408, or the caller's deadline).
	ErrTimeout = errors.New("llm: timeout")
	// ErrBadResponse means the provider answered with something that is not
	// a valid response: malformed JSON, a stream cut off before its end,
	// embeddings of the wrong dimension.
	ErrBadResponse = errors.New("llm: bad response")
	// ErrUnavailable means the provider could not be reached or failed on
	// its side (connection errors, HTTP 5xx).
	ErrUnavailable = errors.New("llm: provider unavailable")
	// ErrPermanent means the provider rejected the request itself (HTTP 4xx
	// other than 408 and 429: bad request, auth, unknown model, exhausted
	// quota); repeating it will not help.
	ErrPermanent = errors.New("llm: request rejected")
)
