package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/llm"
)

// maxRetryAfter is the longest Retry-After the client waits for; a server
// asking for more gets the error back at once.
const maxRetryAfter = time.Minute

// maxBody caps a response body read at once (embeddings of a full batch
// are the largest).
const maxBody = 64 << 20

// Client talks to an OpenAI-compatible server. It is safe for concurrent
// use.
type Client struct {
	cfg  Config
	base string
	// sleep waits between attempts; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ llm.Chatter = (*Client)(nil)

// New returns a client for cfg.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	return &Client{
		cfg:   cfg,
		base:  strings.TrimRight(cfg.BaseURL, "/"),
		sleep: sleepCtx,
	}, nil
}

// send posts body to path under the attempt context actx. Transport
// failures and error statuses come back classified; ctx is the caller's
// context, to tell its end from the attempt's timeout.
func (c *Client) send(ctx, actx context.Context, path string, body []byte, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: build request: %w", llm.ErrPermanent, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, c.failure(ctx, actx, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, c.statusError(resp)
	}
	return resp, nil
}

// postJSON sends one attempt with the fixed attempt timeout and decodes
// the response into v.
func (c *Client) postJSON(ctx context.Context, path string, body []byte, v any) error {
	actx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, errAttemptTimeout)
	defer cancel()
	resp, err := c.send(ctx, actx, path, body, "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return c.failure(ctx, actx, fmt.Errorf("read response: %w", err))
	}
	if len(data) > maxBody {
		return fmt.Errorf("%w: response larger than %d bytes", llm.ErrBadResponse, maxBody)
	}
	return decodeBody(data, v)
}

// failure classifies a transport or read error of one attempt.
func (c *Client) failure(ctx, actx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctxError(ctx)
	}
	if errors.Is(context.Cause(actx), errAttemptTimeout) {
		return fmt.Errorf("%w: no answer within %s", llm.ErrTimeout, c.cfg.Timeout)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w: %w", llm.ErrTimeout, err)
	}
	return fmt.Errorf("%w: %w", llm.ErrUnavailable, err)
}

// ctxError is the error for a caller's context that ended; a deadline also
// counts as llm.ErrTimeout.
func ctxError(ctx context.Context) error {
	err := context.Cause(ctx)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", llm.ErrTimeout, err)
	}
	return err
}

// retry runs attempt until it succeeds, fails for good, or the retries are
// spent. The error names the number of attempts when there were several.
func (c *Client) retry(ctx context.Context, attempt func(ctx context.Context) error) error {
	for n := 0; ; n++ {
		err := attempt(ctx)
		if err == nil {
			return nil
		}
		wait, again := c.nextWait(ctx, n, err)
		if again {
			if serr := c.sleep(ctx, wait); serr != nil {
				again = false
			}
		}
		if !again {
			if nr, ok := err.(noRetryError); ok {
				err = nr.err
			}
			if ctx.Err() != nil && !errors.Is(err, context.Cause(ctx)) {
				err = fmt.Errorf("%w (last attempt: %v)", ctxError(ctx), err)
			}
			if n > 0 {
				return fmt.Errorf("after %d attempts: %w", n+1, err)
			}
			return err
		}
	}
}

// nextWait says whether attempt n's error is worth another attempt and
// how long to wait before it.
func (c *Client) nextWait(ctx context.Context, n int, err error) (time.Duration, bool) {
	if n >= c.cfg.MaxRetries || ctx.Err() != nil || !retryable(err) {
		return 0, false
	}
	wait := c.backoff(n)
	if ae, ok := errors.AsType[*APIError](err); ok && ae.RetryAfter > 0 {
		if ae.RetryAfter > maxRetryAfter {
			return 0, false
		}
		wait = ae.RetryAfter
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
		return 0, false
	}
	return wait, true
}

// retryable says whether an attempt's error is transient.
func retryable(err error) bool {
	if _, ok := errors.AsType[noRetryError](err); ok {
		return false
	}
	if errors.Is(err, llm.ErrPermanent) {
		return false
	}
	return errors.Is(err, llm.ErrRateLimited) || errors.Is(err, llm.ErrTimeout) ||
		errors.Is(err, llm.ErrUnavailable) || errors.Is(err, errStreamCut)
}

// backoff is the full-jitter wait before retry n.
func (c *Client) backoff(n int) time.Duration {
	ceiling := c.cfg.BackoffMax
	if n < 30 {
		ceiling = min(ceiling, c.cfg.BackoffBase<<n)
	}
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
