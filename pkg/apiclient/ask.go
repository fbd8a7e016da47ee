package apiclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/propagation"

	"github.com/mithub/mithub/pkg/askmode"
)

// SSE event names of the ask stream.
const (
	AskEventToken    = "token"
	AskEventCitation = "citation"
	AskEventDone     = "done"
	AskEventError    = "error"
)

// maxSSELine bounds one line of an event stream (a done event carries the
// whole answer and its citations).
const maxSSELine = 4 << 20

// AskRequest is the body of POST /v1/meetings/{id}/ask. Question is
// required in answer mode; Mode defaults to askmode.Default; the server
// creates a ThreadID when none is given; SinceMS applies to a catch-up.
type AskRequest struct {
	Question  string       `json:"question,omitempty"`
	AskerID   string       `json:"asker_id,omitempty"`
	AskerName string       `json:"asker_name,omitempty"`
	ThreadID  string       `json:"thread_id,omitempty"`
	Mode      askmode.Mode `json:"mode,omitempty"`
	SinceMS   *int64       `json:"since_ms,omitempty"`
	// QuestionSegmentID is the transcript segment that carries the
	// question (asked by voice); it is never cited as evidence.
	QuestionSegmentID string `json:"question_segment_id,omitempty"`
}

// Citation is one transcript turn an answer quotes.
type Citation struct {
	N             int     `json:"n"`
	Seq           int64   `json:"seq"`
	TranscriptID  int64   `json:"transcript_id"`
	SpeakerID     string  `json:"speaker_id"`
	SpeakerName   string  `json:"speaker_name"`
	StartMS       int64   `json:"start_ms"`
	Time          string  `json:"time"`
	Text          string  `json:"text"`
	Confidence    float64 `json:"confidence"`
	LowConfidence bool    `json:"low_confidence"`
}

// AskResult is the final answer: the done event of the stream, or the body
// of a JSON-mode call.
type AskResult struct {
	Answer        string       `json:"answer"`
	Citations     []Citation   `json:"citations"`
	Provider      string       `json:"provider"`
	ThreadID      string       `json:"thread_id"`
	Mode          askmode.Mode `json:"mode"`
	Warnings      []string     `json:"warnings"`
	PendingTurns  int          `json:"pending_turns"`
	ContextTokens int          `json:"context_tokens"`
	SinceMS       *int64       `json:"since_ms,omitempty"`
	Timings       AskTimings   `json:"timings"`
}

// AskTimings are the server's durations for an answer, in milliseconds:
// Prepare covers sync, L1 wait, plan, search, reads and Build, the packing
// of the context.
type AskTimings struct {
	PrepareMS float64 `json:"prepare_ms"`
	BuildMS   float64 `json:"build_ms"`
	L1WaitMS  float64 `json:"l1_wait_ms"`
}

// AskEvent is one event of the ask stream. Exactly one of Token (for
// token), Citation (for citation) or Result (for done) is set; events of
// other names carry only Name and Data.
type AskEvent struct {
	// Name is the SSE event name.
	Name string
	// Data is the raw event data.
	Data     json.RawMessage
	Token    string
	Citation *Citation
	Result   *AskResult
}

// StreamError is an error event sent after the answer stream started: the
// server had already answered 200, so there is no status.
type StreamError struct {
	Code    string
	Message string
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("ask stream error %s: %s", e.Code, e.Message)
}

// ErrAskIncomplete: the ask stream ended without a done or error event.
var ErrAskIncomplete = errors.New("apiclient: ask stream ended before its done event")

// AskStream asks a question and calls fn with every event of the answer as
// it arrives (token chunks first, then citations, then done) on the calling
// goroutine. It returns the done event's result, the server's error event
// as a *StreamError, an *APIError when the server refused the question
// before streaming, or fn's error, which stops reading. Like CreateMeeting
// it is retried only when the connection was refused, and no retry starts
// that would end after the policy's MaxElapsedTime. Bound the whole
// answer with ctx; a client built WithHTTPClient decides the per-request
// timeout.
func (c *Client) AskStream(ctx context.Context, meetingID string, req AskRequest, fn func(AskEvent) error) (AskResult, error) {
	if meetingID == "" {
		return AskResult{}, ErrNoMeetingID
	}
	payload, err := json.Marshal(req)
	if err != nil {
		return AskResult{}, fmt.Errorf("ask %s: encode request: %w", meetingID, err)
	}
	path := "/v1/meetings/" + url.PathEscape(meetingID) + "/ask"
	var res AskResult
	start := c.now()
	for attempt := 1; ; attempt++ {
		var resp *http.Response
		resp, err = c.openStream(ctx, path, payload)
		if err == nil {
			res, err = readAskStream(resp.Body, fn)
			resp.Body.Close()
			break
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (after %d attempts, last error: %v)", ctx.Err(), attempt, err)
			break
		}
		if !retryable(retryRefused, err) || (c.policy.MaxAttempts > 0 && attempt >= c.policy.MaxAttempts) {
			err = giveUp(attempt, err)
			break
		}
		delay := c.policy.backoff(attempt-1, c.rand())
		if c.now().Sub(start)+delay > c.policy.MaxElapsedTime {
			err = giveUp(attempt, err)
			break
		}
		if c.notify != nil {
			c.notify(RetryEvent{Method: http.MethodPost, Path: path, Attempt: attempt, Delay: delay, Err: err})
		}
		if serr := c.sleep(ctx, delay); serr != nil {
			err = fmt.Errorf("%w (after %d attempts, last error: %v)", serr, attempt, err)
			break
		}
	}
	if err != nil {
		return AskResult{}, fmt.Errorf("ask %s: %w", meetingID, err)
	}
	return res, nil
}

// openStream sends the ask request for an event stream and returns the
// 2xx response, whose body the caller closes.
func (c *Client) openStream(ctx context.Context, path string, payload []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+path, bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	traceContext.Inject(ctx, propagation.HeaderCarrier(req.Header))
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		resp.Body.Close()
		return nil, newAPIError(resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		resp.Body.Close()
		return nil, fmt.Errorf("ask: response is %q, not an event stream", ct)
	}
	return resp, nil
}

// readAskStream dispatches the events of r to fn until done or error.
func readAskStream(r io.Reader, fn func(AskEvent) error) (AskResult, error) {
	var (
		result *AskResult
		serr   error
	)
	err := readSSE(r, func(name string, data []byte) (bool, error) {
		ev := AskEvent{Name: name, Data: append(json.RawMessage(nil), data...)}
		switch name {
		case AskEventToken:
			var tok struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(data, &tok); err != nil {
				return false, fmt.Errorf("decode %s event: %w", name, err)
			}
			ev.Token = tok.Text
		case AskEventCitation:
			ev.Citation = &Citation{}
			if err := json.Unmarshal(data, ev.Citation); err != nil {
				return false, fmt.Errorf("decode %s event: %w", name, err)
			}
		case AskEventDone:
			ev.Result = &AskResult{}
			if err := json.Unmarshal(data, ev.Result); err != nil {
				return false, fmt.Errorf("decode %s event: %w", name, err)
			}
			result = ev.Result
		case AskEventError:
			var eb errorBody
			se := &StreamError{Code: "unknown", Message: strings.TrimSpace(string(data))}
			if json.Unmarshal(data, &eb) == nil && eb.Error != nil {
				se.Code, se.Message = eb.Error.Code, eb.Error.Message
			}
			serr = se
		}
		if fn != nil {
			if err := fn(ev); err != nil {
				return false, err
			}
		}
		return result == nil && serr == nil, nil
	})
	switch {
	case err != nil:
		return AskResult{}, err
	case serr != nil:
		return AskResult{}, serr
	case result == nil:
		return AskResult{}, ErrAskIncomplete
	}
	return *result, nil
}

// readSSE parses a text/event-stream and calls fn per event with its name
// ("message" when unnamed) and data (data lines joined by "\n"). Lines end
// with "\r\n", "\n" or "\r", as the format allows. fn returns whether to
// keep reading.
func readSSE(r io.Reader, fn func(name string, data []byte) (bool, error)) error {
	sc := bufio.NewScanner(r)
	// The buffer starts small (most events are short) and grows to the
	// longest line, up to maxSSELine.
	sc.Buffer(make([]byte, 0, 4<<10), maxSSELine)
	sc.Split(scanSSELines)
	var (
		name    string
		data    []byte
		hasData bool
	)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if hasData {
				if name == "" {
					name = "message"
				}
				more, err := fn(name, data)
				if err != nil || !more {
					return err
				}
			}
			name, data, hasData = "", data[:0], false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue // comment or keep-alive
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			name = value
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read event stream: %w", err)
	}
	return nil
}

// scanSSELines is a bufio.SplitFunc for event-stream lines: "\r\n", "\n"
// and a lone "\r" each end a line.
func scanSSELines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		// A "\r" at the end of the buffer may be the first half of "\r\n".
		if i+1 == len(data) && !atEOF {
			return 0, nil, nil
		}
		if i+1 < len(data) && data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// Ask asks a question and returns the whole answer as one JSON document
// (Accept: application/json). It is retried only when the connection was
// refused.
func (c *Client) Ask(ctx context.Context, meetingID string, req AskRequest) (AskResult, error) {
	var res AskResult
	if err := c.meetingCall(ctx, http.MethodPost, meetingID, "/ask", req, retryRefused, &res); err != nil {
		return AskResult{}, fmt.Errorf("ask %s: %w", meetingID, err)
	}
	return res, nil
}
