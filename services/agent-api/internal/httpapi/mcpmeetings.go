package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/mcpserver"
	"github.com/mithub/mithub/services/agent-api/internal/ask"
)

// mcpMeetings serves the MCP meeting tools of one tenant in-process: it
// checks its arguments as the HTTP routes check theirs, calls the same use
// cases, and hands back the routes' JSON documents decoded into
// apiclient's types, so the tools answer exactly what they answer over
// HTTP (mithubctl mcp). Errors are the API's error documents as
// *apiclient.APIError.
type mcpMeetings struct {
	s        *Server
	tenantID string
}

var _ mcpserver.Meetings = (*mcpMeetings)(nil)

// ListMeetings is GET /v1/meetings?limit=N.
func (m *mcpMeetings) ListMeetings(ctx context.Context, limit int) ([]apiclient.Meeting, error) {
	if limit <= 0 {
		limit = 100
	}
	if limit > maxListLimit {
		return nil, fmt.Errorf("list meetings: %w", apiErrorOf(errInvalid("limit must be an integer from 1 to %d", maxListLimit)))
	}
	ms, err := m.s.meetingList(ctx, m.tenantID, limit)
	if err != nil {
		return nil, fmt.Errorf("list meetings: %w", apiErrorOf(err))
	}
	var out []apiclient.Meeting
	if err := viaJSON(ms, &out); err != nil {
		return nil, fmt.Errorf("list meetings: %w", err)
	}
	return out, nil
}

// Topics is GET /v1/meetings/{id}/topics.
func (m *mcpMeetings) Topics(ctx context.Context, meetingID string) (apiclient.TopicList, error) {
	tl, err := m.topics(ctx, meetingID)
	if err != nil {
		return apiclient.TopicList{}, fmt.Errorf("list topics of %s: %w", meetingID, err)
	}
	return tl, nil
}

func (m *mcpMeetings) topics(ctx context.Context, meetingID string) (apiclient.TopicList, error) {
	id, err := parseMeetingID(meetingID)
	if err != nil {
		return apiclient.TopicList{}, apiErrorOf(err)
	}
	tl, err := m.s.Meetings.Topics(ctx, m.tenantID, id)
	if err != nil {
		return apiclient.TopicList{}, apiErrorOf(err)
	}
	var out apiclient.TopicList
	err = viaJSON(topicsJSON{MeetingID: id, L1Cursor: tl.L1Cursor, Pending: tl.PendingTurns, Topics: nonNil(tl.Topics)}, &out)
	return out, err
}

// SearchTopics is GET /v1/meetings/{id}/topics?q=...&k=...; k <= 0 takes
// the default.
func (m *mcpMeetings) SearchTopics(ctx context.Context, meetingID, query string, k int) (apiclient.TopicSearch, error) {
	ts, err := m.searchTopics(ctx, meetingID, query, k)
	if err != nil {
		return apiclient.TopicSearch{}, fmt.Errorf("search topics of %s: %w", meetingID, err)
	}
	return ts, nil
}

func (m *mcpMeetings) searchTopics(ctx context.Context, meetingID, query string, k int) (apiclient.TopicSearch, error) {
	id, err := parseMeetingID(meetingID)
	if err != nil {
		return apiclient.TopicSearch{}, apiErrorOf(err)
	}
	rawK := ""
	if k > 0 {
		rawK = strconv.Itoa(k)
	}
	q, k, err := parseSearch(query, rawK)
	if err != nil {
		return apiclient.TopicSearch{}, apiErrorOf(err)
	}
	var doc any
	if q == "" {
		tl, err := m.s.Meetings.Topics(ctx, m.tenantID, id)
		if err != nil {
			return apiclient.TopicSearch{}, apiErrorOf(err)
		}
		doc = topicsJSON{MeetingID: id, L1Cursor: tl.L1Cursor, Pending: tl.PendingTurns, Topics: nonNil(tl.Topics)}
	} else {
		hits, err := m.s.Search.MeetingTopics(ctx, m.tenantID, id, q, k)
		if err != nil {
			return apiclient.TopicSearch{}, apiErrorOf(err)
		}
		doc = topicSearchJSON{MeetingID: id, Query: q, Results: nonNil(hits)}
	}
	var out apiclient.TopicSearch
	err = viaJSON(doc, &out)
	return out, err
}

// Ask is POST /v1/meetings/{id}/ask with Accept: application/json.
func (m *mcpMeetings) Ask(ctx context.Context, meetingID string, req apiclient.AskRequest) (apiclient.AskResult, error) {
	res, err := m.ask(ctx, meetingID, req)
	if err != nil {
		return apiclient.AskResult{}, fmt.Errorf("ask %s: %w", meetingID, err)
	}
	return res, nil
}

func (m *mcpMeetings) ask(ctx context.Context, meetingID string, req apiclient.AskRequest) (apiclient.AskResult, error) {
	id, err := parseMeetingID(meetingID)
	if err != nil {
		return apiclient.AskResult{}, apiErrorOf(err)
	}
	if m.s.Ask == nil {
		return apiclient.AskResult{}, apiErrorOf(errUnavailable("asking is not configured on this server"))
	}
	var areq ask.Request
	if err := viaJSON(req, &areq); err != nil {
		return apiclient.AskResult{}, err
	}
	p, err := m.s.Ask.Prepare(ctx, m.tenantID, id, areq)
	if err != nil {
		return apiclient.AskResult{}, apiErrorOf(askErr(err))
	}
	res, err := m.s.answer(ctx, p)
	if err != nil {
		return apiclient.AskResult{}, apiErrorOf(err)
	}
	var out apiclient.AskResult
	err = viaJSON(res, &out)
	return out, err
}

// viaJSON decodes the JSON encoding of in into out: the document a route
// would send, read as its client reads it.
func viaJSON(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encode %T: %w", in, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("decode %T: %w", out, err)
	}
	return nil
}

// apiErrorOf is the error document the API would answer err with, as its
// client reports it; server errors keep only their generic message.
func apiErrorOf(err error) error {
	ae := classify(err)
	return &apiclient.APIError{Status: ae.Status, Code: ae.Code, Message: ae.Message}
}
