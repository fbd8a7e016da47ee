package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/llm"
)

// APIError is an HTTP error status from the server. It wraps the llm
// sentinel of its category: ErrRateLimited (429), ErrTimeout (408),
// ErrUnavailable (5xx), ErrPermanent (other 4xx, and a 429 for an exhausted
// quota, which waiting does not fix) or ErrBadResponse (anything else).
type APIError struct {
	StatusCode int
	// Type and Code are the server's error type and code, when it sent
	// them.
	Type string
	Code string
	// Message is the server's error message, shortened, with the API key
	// removed.
	Message string
	// RetryAfter is the wait the server asked for, zero when it did not.
	RetryAfter time.Duration

	kinds []error
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: status %d", e.kinds[0], e.StatusCode)
	if e.Code != "" {
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap returns the llm sentinels the error belongs to.
func (e *APIError) Unwrap() []error { return e.kinds }

const (
	maxErrorBody    = 8 << 10
	maxErrorMessage = 300
)

// statusError reads an error response into an APIError.
func (c *Client) statusError(resp *http.Response) *APIError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &APIError{StatusCode: resp.StatusCode}
	e.Type, e.Code, e.Message = parseErrorBody(body)
	e.Message = shorten(c.redact(e.Message), maxErrorMessage)
	e.Code = shorten(c.redact(e.Code), 64)
	e.Type = shorten(c.redact(e.Type), 64)
	switch s := resp.StatusCode; {
	case s == http.StatusTooManyRequests && (e.Code == "insufficient_quota" || e.Type == "insufficient_quota"):
		e.kinds = []error{llm.ErrRateLimited, llm.ErrPermanent}
	case s == http.StatusTooManyRequests:
		e.kinds = []error{llm.ErrRateLimited}
		e.RetryAfter = retryAfter(resp.Header, time.Now())
	case s == http.StatusRequestTimeout:
		e.kinds = []error{llm.ErrTimeout}
	case s >= 500:
		e.kinds = []error{llm.ErrUnavailable}
		e.RetryAfter = retryAfter(resp.Header, time.Now())
	case s >= 400:
		e.kinds = []error{llm.ErrPermanent}
	default:
		e.kinds = []error{llm.ErrBadResponse}
	}
	return e
}

// parseErrorBody understands {"error":{"message","type","code"}},
// {"error":"..."}, {"message":"..."} and plain text.
func parseErrorBody(body []byte) (typ, code, msg string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) != nil {
		return "", "", strings.TrimSpace(string(body))
	}
	var obj struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	var s string
	switch {
	case json.Unmarshal(v.Error, &obj) == nil && (obj.Message != "" || obj.Type != ""):
		if obj.Code != nil {
			code = fmt.Sprint(obj.Code)
		}
		return obj.Type, code, obj.Message
	case json.Unmarshal(v.Error, &s) == nil:
		return "", "", s
	default:
		return "", "", v.Message
	}
}

// retryAfter reads Retry-After (seconds or an HTTP date) or retry-after-ms.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs > 1e6 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// redact removes the API key from text that came from the server.
func (c *Client) redact(s string) string {
	if c.cfg.APIKey == "" || s == "" {
		return s
	}
	return strings.ReplaceAll(s, c.cfg.APIKey, "[redacted]")
}

// shorten cuts s to at most n bytes on a rune boundary and makes it one
// line.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// noRetryError marks an attempt's error as final.
type noRetryError struct{ err error }

func (e noRetryError) Error() string { return e.err.Error() }
func (e noRetryError) Unwrap() error { return e.err }

// errStreamCut means a stream ended before [DONE] or a finish reason.
var errStreamCut = errors.New("stream cut off before its end")

// errAttemptTimeout is the cause of an attempt's context when its timeout
// expires.
var errAttemptTimeout = errors.New("attempt timed out")
