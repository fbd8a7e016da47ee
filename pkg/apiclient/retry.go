package apiclient

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RetryPolicy controls how a call is retried. Zero duration and multiplier
// fields take the values of DefaultRetryPolicy; a zero Jitter means no
// jitter and a zero MaxAttempts means no limit other than MaxElapsedTime.
type RetryPolicy struct {
	// InitialInterval is the delay before the first retry. Default 200ms.
	InitialInterval time.Duration
	// MaxInterval caps a single delay. Default 5s.
	MaxInterval time.Duration
	// Multiplier grows the delay after each retry. Default 2.
	Multiplier float64
	// Jitter spreads each delay uniformly over ±Jitter of its value
	// (0 to 1). Default 0.5.
	Jitter float64
	// MaxElapsedTime bounds the time one call spends including retries: no
	// retry is started that would end after it. Default 60s.
	MaxElapsedTime time.Duration
	// MaxAttempts bounds the number of attempts (1 disables retries).
	// Default 0: bounded only by MaxElapsedTime.
	MaxAttempts int
}

// DefaultRetryPolicy returns the policy a Client uses unless WithRetryPolicy
// is given.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		InitialInterval: 200 * time.Millisecond,
		MaxInterval:     5 * time.Second,
		Multiplier:      2,
		Jitter:          0.5,
		MaxElapsedTime:  60 * time.Second,
	}
}

// NoRetry returns a policy that makes every call a single attempt.
func NoRetry() RetryPolicy {
	p := DefaultRetryPolicy()
	p.MaxAttempts = 1
	return p
}

// withDefaults fills zero fields from DefaultRetryPolicy and clamps Jitter.
func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy()
	if p.InitialInterval <= 0 {
		p.InitialInterval = d.InitialInterval
	}
	if p.MaxInterval <= 0 {
		p.MaxInterval = d.MaxInterval
	}
	if p.Multiplier < 1 {
		p.Multiplier = d.Multiplier
	}
	if p.MaxElapsedTime <= 0 {
		p.MaxElapsedTime = d.MaxElapsedTime
	}
	p.Jitter = min(max(p.Jitter, 0), 1)
	return p
}

// backoff returns the delay before retry number n (0-based); r is a uniform
// random number in [0, 1).
func (p RetryPolicy) backoff(n int, r float64) time.Duration {
	base := float64(p.InitialInterval) * math.Pow(p.Multiplier, float64(n))
	base = min(base, float64(p.MaxInterval))
	d := base * (1 - p.Jitter + 2*p.Jitter*r)
	return time.Duration(d)
}

// RetryEvent describes a retry that is about to happen; see WithRetryNotify.
type RetryEvent struct {
	Method string
	Path   string
	// Attempt is the number of the attempt that just failed (1-based).
	Attempt int
	// Delay is how long the client waits before the next attempt.
	Delay time.Duration
	// Err is the error of the failed attempt.
	Err error
}

// retryMode says which failures a call may retry.
type retryMode int

const (
	// retryIdempotent retries connection errors and 429/502/503/504.
	retryIdempotent retryMode = iota
	// retryRefused retries only refused connections: the request cannot
	// have reached the server.
	retryRefused
)

// retryable reports whether err, returned by one attempt, may be retried.
func retryable(mode retryMode, err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	if mode != retryIdempotent {
		return false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		switch apiErr.Status {
		case http.StatusTooManyRequests, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	}
	return connectionError(err)
}

// connectionError reports whether err is a broken or timed-out connection.
func connectionError(err error) bool {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF):
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.IsTemporary || dnsErr.IsTimeout
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return true
	}
	// net/http reports a keep-alive connection closed under a request this
	// way, without an error value to match.
	return strings.Contains(err.Error(), "server closed idle connection")
}

// retryAfter parses a Retry-After header given in seconds; HTTP dates and
// garbage yield 0.
func retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	secs, err := strconv.Atoi(v)
	if err != nil || secs < 0 {
		return 0
	}
	return time.Duration(secs) * time.Second
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
