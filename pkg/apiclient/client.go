package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"
)

const (
	// DefaultUserAgent is sent unless WithUserAgent is given.
	DefaultUserAgent = "mithub-apiclient/1"
	// defaultTimeout bounds one attempt when no http.Client is given.
	defaultTimeout = 30 * time.Second
	// maxResponseBytes bounds a successful response body.
	maxResponseBytes = 64 << 20
	// maxErrorBytes bounds how much of an error response body is read.
	maxErrorBytes = 64 << 10
)

// traceContext writes W3C trace headers; nothing without a span.
var traceContext = propagation.TraceContext{}

// Client calls the agent-api. It is safe for concurrent use.
type Client struct {
	baseURL   string
	apiKey    string
	hc        *http.Client
	userAgent string
	policy    RetryPolicy
	notify    func(RetryEvent)

	// now, sleep and rand are replaced in tests.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
	rand  func() float64
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the http.Client used for requests. Default: a client
// with a 30s timeout per attempt.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.hc = hc
		}
	}
}

// WithUserAgent sets the User-Agent header. Default: DefaultUserAgent.
func WithUserAgent(ua string) Option {
	return func(c *Client) {
		if ua != "" {
			c.userAgent = ua
		}
	}
}

// WithRetryPolicy sets the retry policy. Default: DefaultRetryPolicy().
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) { c.policy = p.withDefaults() }
}

// WithRetryNotify registers fn to be called before each retry, for logging
// or progress output. fn runs on the calling goroutine.
func WithRetryNotify(fn func(RetryEvent)) Option {
	return func(c *Client) { c.notify = fn }
}

// New returns a client for the API at baseURL (for example
// "http://127.0.0.1:8080") that authenticates with apiKey.
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{
		baseURL:   strings.TrimRight(baseURL, "/"),
		apiKey:    apiKey,
		hc:        &http.Client{Timeout: defaultTimeout},
		userAgent: DefaultUserAgent,
		policy:    DefaultRetryPolicy(),
		now:       time.Now,
		sleep:     sleepCtx,
		rand:      rand.Float64,
	}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// call is one API operation.
type call struct {
	method string
	path   string
	body   any // marshalled to JSON when non-nil
	mode   retryMode
}

// do runs c with retries and stores the 2xx response body in out (a
// pointer to decode into, a *json.RawMessage, or nil to discard it).
func (c *Client) do(ctx context.Context, cl call, out any) error {
	var payload []byte
	if cl.body != nil {
		var err error
		if payload, err = json.Marshal(cl.body); err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
	}
	start := c.now()
	for attempt := 1; ; attempt++ {
		body, wait, err := c.attempt(ctx, cl, payload)
		if err == nil {
			return decode(body, out)
		}
		if ctx.Err() != nil {
			// Cancelled while the attempt failed: the caller's reason wins.
			return fmt.Errorf("%w (after %d attempts, last error: %v)", ctx.Err(), attempt, err)
		}
		if !retryable(cl.mode, err) {
			return err
		}
		if c.policy.MaxAttempts > 0 && attempt >= c.policy.MaxAttempts {
			return giveUp(attempt, err)
		}
		delay := max(c.policy.backoff(attempt-1, c.rand()), wait)
		if c.now().Sub(start)+delay > c.policy.MaxElapsedTime {
			return giveUp(attempt, err)
		}
		if c.notify != nil {
			c.notify(RetryEvent{Method: cl.method, Path: cl.path, Attempt: attempt, Delay: delay, Err: err})
		}
		if serr := c.sleep(ctx, delay); serr != nil {
			return fmt.Errorf("%w (after %d attempts, last error: %v)", serr, attempt, err)
		}
	}
}

// giveUp wraps the last error of a call that ran out of retries.
func giveUp(attempts int, err error) error {
	if attempts == 1 {
		return err
	}
	return fmt.Errorf("after %d attempts: %w", attempts, err)
}

// attempt sends one request. It returns the body of a 2xx response, or an
// error (an *APIError for other statuses) and the server's Retry-After.
func (c *Client) attempt(ctx context.Context, cl call, payload []byte) ([]byte, time.Duration, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, c.baseURL+cl.path, body)
	if err != nil {
		return nil, 0, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	// The caller's trace continues in agent-api (W3C traceparent).
	traceContext.Inject(ctx, propagation.HeaderCarrier(req.Header))
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
		if err != nil {
			return nil, 0, fmt.Errorf("%s %s: read response: %w", cl.method, cl.path, err)
		}
		return b, 0, nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
	return nil, retryAfter(resp.Header), newAPIError(resp.StatusCode, b)
}

// decode stores body in out.
func decode(body []byte, out any) error {
	switch o := out.(type) {
	case nil:
		return nil
	case *json.RawMessage:
		if !json.Valid(body) {
			return fmt.Errorf("decode response: invalid JSON: %q", truncate(string(body), maxErrorText))
		}
		*o = append((*o)[:0], body...)
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decode response: %w", err)
	}
	return nil
}
