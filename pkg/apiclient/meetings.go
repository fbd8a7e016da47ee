package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// ErrNoMeetingID is returned when a method needing a meeting id gets "".
var ErrNoMeetingID = errors.New("apiclient: empty meeting id")

// Healthz checks GET /healthz and returns nil on a 2xx response. Like every
// GET it is retried while the API is unreachable; bound the wait with ctx
// or a client built WithRetryPolicy(NoRetry()).
func (c *Client) Healthz(ctx context.Context) error {
	err := c.do(ctx, call{method: http.MethodGet, path: "/healthz", mode: retryIdempotent}, nil)
	if err != nil {
		return fmt.Errorf("healthz: %w", err)
	}
	return nil
}

// CreateMeeting creates a meeting. It is retried only when the connection
// was refused, so a meeting is never created twice.
func (c *Client) CreateMeeting(ctx context.Context, req CreateMeetingRequest) (Meeting, error) {
	var m Meeting
	cl := call{method: http.MethodPost, path: "/v1/meetings", body: req, mode: retryRefused}
	if err := c.do(ctx, cl, &m); err != nil {
		return Meeting{}, fmt.Errorf("create meeting: %w", err)
	}
	return m, nil
}

// GetMeeting returns a meeting with its counters.
func (c *Client) GetMeeting(ctx context.Context, meetingID string) (Meeting, error) {
	var m Meeting
	if err := c.meetingCall(ctx, http.MethodGet, meetingID, "", nil, retryIdempotent, &m); err != nil {
		return Meeting{}, fmt.Errorf("get meeting %s: %w", meetingID, err)
	}
	return m, nil
}

// PostUtterances stores up to MaxUtterancesPerRequest utterances. Segment
// ids make it idempotent, so it is retried like a GET.
func (c *Client) PostUtterances(ctx context.Context, meetingID string, utts []Utterance) (IngestResult, error) {
	if len(utts) > MaxUtterancesPerRequest {
		return IngestResult{}, fmt.Errorf("post utterances %s: %d utterances, at most %d per request",
			meetingID, len(utts), MaxUtterancesPerRequest)
	}
	if utts == nil {
		utts = []Utterance{}
	}
	var res IngestResult
	body := ingestRequest{Utterances: utts}
	if err := c.meetingCall(ctx, http.MethodPost, meetingID, "/utterances", body, retryIdempotent, &res); err != nil {
		return IngestResult{}, fmt.Errorf("post utterances %s: %w", meetingID, err)
	}
	return res, nil
}

// Sync asks the API to load transcripts newer than its cursor into the
// meeting context.
func (c *Client) Sync(ctx context.Context, meetingID string) (SyncResult, error) {
	var res SyncResult
	if err := c.meetingCall(ctx, http.MethodPost, meetingID, "/sync", nil, retryIdempotent, &res); err != nil {
		return SyncResult{}, fmt.Errorf("sync %s: %w", meetingID, err)
	}
	return res, nil
}

// EndMeeting marks a meeting ended and returns it. Like CreateMeeting it is
// retried only when the connection was refused.
func (c *Client) EndMeeting(ctx context.Context, meetingID string) (Meeting, error) {
	var m Meeting
	if err := c.meetingCall(ctx, http.MethodPost, meetingID, "/end", nil, retryRefused, &m); err != nil {
		return Meeting{}, fmt.Errorf("end meeting %s: %w", meetingID, err)
	}
	return m, nil
}

// Context returns the meeting's L0 context.
func (c *Client) Context(ctx context.Context, meetingID string) (Context, error) {
	var mc Context
	if err := c.meetingCall(ctx, http.MethodGet, meetingID, "/context", nil, retryIdempotent, &mc); err != nil {
		return Context{}, fmt.Errorf("get context %s: %w", meetingID, err)
	}
	return mc, nil
}

// ContextWaited returns the meeting context after waiting, at most the
// server's bound, for pending topic segmentation.
func (c *Client) ContextWaited(ctx context.Context, meetingID string) (Context, error) {
	var mc Context
	if err := c.meetingCall(ctx, http.MethodGet, meetingID, "/context?wait=true", nil, retryIdempotent, &mc); err != nil {
		return Context{}, fmt.Errorf("get context %s: %w", meetingID, err)
	}
	return mc, nil
}

// ContextRaw returns the meeting context document exactly as the API sent
// it, including fields that Context does not model.
func (c *Client) ContextRaw(ctx context.Context, meetingID string) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := c.meetingCall(ctx, http.MethodGet, meetingID, "/context", nil, retryIdempotent, &raw); err != nil {
		return nil, fmt.Errorf("get context %s: %w", meetingID, err)
	}
	return raw, nil
}

// meetingCall runs a call on /v1/meetings/{id}{suffix}.
func (c *Client) meetingCall(ctx context.Context, method, meetingID, suffix string, body any, mode retryMode, out any) error {
	if meetingID == "" {
		return ErrNoMeetingID
	}
	cl := call{
		method: method,
		path:   "/v1/meetings/" + url.PathEscape(meetingID) + suffix,
		body:   body,
		mode:   mode,
	}
	return c.do(ctx, cl, out)
}

// Presence events.
const (
	PresenceJoined = "joined"
	PresenceLeft   = "left"
)

// Presence is a participant joining or leaving a meeting. AtMS is the
// offset from the meeting's start; nil lets the server stamp it now.
type Presence struct {
	ParticipantID string `json:"participant_id"`
	Event         string `json:"event"`
	AtMS          *int64 `json:"at_ms,omitempty"`
}

// PresenceResult is the recorded event; Created is false when the same
// event was recorded before.
type PresenceResult struct {
	ParticipantID string `json:"participant_id"`
	Event         string `json:"event"`
	AtMS          int64  `json:"at_ms"`
	Created       bool   `json:"created"`
}

// RecordPresence records that a participant joined or left the meeting.
// With AtMS set it is idempotent and retried like Sync.
func (c *Client) RecordPresence(ctx context.Context, meetingID string, p Presence) (PresenceResult, error) {
	retry := retryRefused
	if p.AtMS != nil {
		retry = retryIdempotent
	}
	var res PresenceResult
	if err := c.meetingCall(ctx, http.MethodPost, meetingID, "/presence", p, retry, &res); err != nil {
		return PresenceResult{}, fmt.Errorf("record presence in %s: %w", meetingID, err)
	}
	return res, nil
}
