package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/llm"
)

// ChatStream sends a streaming chat completion request (stream: true, with
// the usage chunk requested) and calls onDelta with each piece of content
// as it arrives. A stream that ends before [DONE] or a finish reason is an
// error wrapping llm.ErrBadResponse. A failed attempt is retried only while
// no delta has been delivered: onDelta cannot take text back, so after the
// first delta an error is returned at once, with the content delivered so
// far in the response. An error from onDelta ends the call and is returned
// wrapped. A server that ignores stream and answers with one JSON body is
// accepted; its content arrives as a single delta.
func (c *Client) ChatStream(ctx context.Context, req llm.ChatRequest, onDelta func(string) error) (llm.ChatResponse, error) {
	body, model, err := c.chatBody(req, true)
	if err != nil {
		return llm.ChatResponse{}, fmt.Errorf("openai chat stream: %w", err)
	}
	delivered := false
	deliver := func(s string) error {
		if s == "" {
			return nil
		}
		delivered = true
		if onDelta == nil {
			return nil
		}
		if err := onDelta(s); err != nil {
			return callbackError{err}
		}
		return nil
	}
	var out llm.ChatResponse
	err = c.retry(ctx, func(ctx context.Context) error {
		r, err := c.streamOnce(ctx, body, deliver)
		out = r
		if err != nil && delivered {
			return noRetryError{err}
		}
		return err
	})
	if err != nil {
		return out, fmt.Errorf("openai chat stream %s: %w", model, err)
	}
	c.reportUsage(model, out.Usage)
	return out, nil
}

// callbackError carries an error returned by onDelta.
type callbackError struct{ err error }

func (e callbackError) Error() string { return "stream consumer: " + e.err.Error() }
func (e callbackError) Unwrap() error { return e.err }

// streamOnce runs one streaming attempt. The attempt's timeout is an idle
// timeout: it restarts with every line received.
func (c *Client) streamOnce(ctx context.Context, body []byte, deliver func(string) error) (llm.ChatResponse, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(c.cfg.Timeout, func() { cancel(errAttemptTimeout) })
	defer timer.Stop()

	resp, err := c.send(ctx, actx, "/chat/completions", body, "text/event-stream")
	if err != nil {
		return llm.ChatResponse{}, err
	}
	defer resp.Body.Close()
	if isJSON(resp.Header) {
		return c.unstreamed(ctx, actx, resp.Body, deliver)
	}

	var (
		out      llm.ChatResponse
		content  strings.Builder
		finished bool
	)
	events := &sseReader{r: newLineReader(resp.Body)}
	for {
		data, err := events.next(func() { timer.Reset(c.cfg.Timeout) })
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			out.Content = content.String()
			if ctx.Err() != nil || errors.Is(context.Cause(actx), errAttemptTimeout) {
				return out, c.failure(ctx, actx, err)
			}
			if errors.Is(err, llm.ErrBadResponse) {
				return out, err
			}
			return out, fmt.Errorf("%w: %w: %w", llm.ErrBadResponse, errStreamCut, err)
		}
		if strings.TrimSpace(data) == "[DONE]" {
			finished = true
			break
		}
		fin, err := applyChunk(data, &out, &content, deliver)
		if err != nil {
			out.Content = content.String()
			return out, err
		}
		finished = finished || fin
	}
	out.Content = content.String()
	if !finished {
		return out, fmt.Errorf("%w: %w", llm.ErrBadResponse, errStreamCut)
	}
	return out, nil
}

// applyChunk folds one stream chunk into out and delivers its content. It
// reports whether the chunk carried a finish reason.
func applyChunk(data string, out *llm.ChatResponse, content *strings.Builder, deliver func(string) error) (bool, error) {
	var ch streamChunk
	if err := json.Unmarshal([]byte(data), &ch); err != nil {
		return false, fmt.Errorf("%w: decode stream chunk: %w", llm.ErrBadResponse, err)
	}
	if ch.Error != nil {
		return false, fmt.Errorf("%w: error in stream: %s", llm.ErrUnavailable, shorten(ch.Error.Message, maxErrorMessage))
	}
	if ch.Model != "" {
		out.Model = ch.Model
	}
	if ch.Usage != nil {
		out.Usage = ch.Usage.usage()
	}
	finished := false
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue
		}
		if d := choice.Delta.Content; d != nil && *d != "" {
			content.WriteString(*d)
			if err := deliver(*d); err != nil {
				return false, err
			}
		}
		if fr := choice.FinishReason; fr != nil && *fr != "" {
			out.FinishReason = *fr
			finished = true
		}
	}
	return finished, nil
}

// unstreamed handles a server that answered a stream request with one JSON
// body: the content is delivered as a single delta.
func (c *Client) unstreamed(ctx, actx context.Context, body io.Reader, deliver func(string) error) (llm.ChatResponse, error) {
	data, err := io.ReadAll(io.LimitReader(body, maxBody))
	if err != nil {
		return llm.ChatResponse{}, c.failure(ctx, actx, fmt.Errorf("read response: %w", err))
	}
	var wire chatResponse
	if err := decodeBody(data, &wire); err != nil {
		return llm.ChatResponse{}, err
	}
	out, err := wire.response()
	if err != nil {
		return out, err
	}
	return out, deliver(out.Content)
}

func isJSON(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == "application/json"
}
