package mcpserver

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/askmode"
)

const maxQuestionRunes = 4000

type meetingListInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"how many meetings, newest first, 1 to 1000 (default 20)"`
}

type meetingListOutput struct {
	Meetings []apiclient.Meeting `json:"meetings"`
}

type meetingTopicsInput struct {
	MeetingID string `json:"meeting_id" jsonschema:"the meeting's id"`
	Query     string `json:"query,omitempty" jsonschema:"search the topics for this (default: list them all in order)"`
	K         int    `json:"k,omitempty" jsonschema:"number of search results, 1 to 100 (default 5)"`
}

type meetingTopicsOutput struct {
	MeetingID string                  `json:"meeting_id"`
	Topics    []apiclient.Topic       `json:"topics,omitempty"`
	Results   []apiclient.ScoredTopic `json:"results,omitempty"`
}

type meetingAskInput struct {
	MeetingID string `json:"meeting_id" jsonschema:"the meeting's id"`
	Question  string `json:"question,omitempty" jsonschema:"the question (required in answer mode, at most 4000 characters)"`
	Mode      string `json:"mode,omitempty" jsonschema:"answer (default) or catch_up (what happened since since_ms)"`
	ThreadID  string `json:"thread_id,omitempty" jsonschema:"continue a previous exchange"`
	SinceMS   *int64 `json:"since_ms,omitempty" jsonschema:"catch_up from this meeting offset in milliseconds"`
}

var errNoMeetings = errors.New("meeting tools are not available: no agent-api connection is configured")

func (s *session) addMeetingTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "meeting_list",
		Description: "List your team's meetings, newest first, with their status and counters."}, s.meetingList)
	mcp.AddTool(srv, &mcp.Tool{Name: "meeting_topics",
		Description: "The topics of a meeting in order, or the topics matching a query."}, s.meetingTopics)
	mcp.AddTool(srv, &mcp.Tool{Name: "meeting_ask",
		Description: "Ask a question about a meeting; the answer cites the transcript turns it is based on."}, s.meetingAsk)
}

func (s *session) meetingList(ctx context.Context, _ *mcp.CallToolRequest, in meetingListInput) (*mcp.CallToolResult, any, error) {
	if s.opts.Meetings == nil {
		return nil, nil, errNoMeetings
	}
	if in.Limit == 0 {
		in.Limit = 20
	}
	if err := checkRange("limit", in.Limit, 1, 1000); err != nil {
		return nil, nil, err
	}
	ms, err := s.opts.Meetings.ListMeetings(ctx, in.Limit)
	if err != nil {
		return nil, nil, err
	}
	if ms == nil {
		ms = []apiclient.Meeting{}
	}
	return nil, meetingListOutput{Meetings: ms}, nil
}

func (s *session) meetingTopics(ctx context.Context, _ *mcp.CallToolRequest, in meetingTopicsInput) (*mcp.CallToolResult, any, error) {
	if s.opts.Meetings == nil {
		return nil, nil, errNoMeetings
	}
	if err := checkUUID("meeting_id", in.MeetingID, true); err != nil {
		return nil, nil, err
	}
	if err := checkRange("k", in.K, 0, maxK); err != nil {
		return nil, nil, err
	}
	if !utf8.ValidString(in.Query) || utf8.RuneCountInString(in.Query) > 1000 {
		return nil, nil, invalid("query must be valid UTF-8 of at most 1000 characters")
	}
	if strings.TrimSpace(in.Query) == "" {
		tl, err := s.opts.Meetings.Topics(ctx, in.MeetingID)
		if err != nil {
			return nil, nil, err
		}
		if tl.Topics == nil {
			tl.Topics = []apiclient.Topic{}
		}
		return nil, meetingTopicsOutput{MeetingID: in.MeetingID, Topics: tl.Topics}, nil
	}
	if in.K == 0 {
		in.K = 5
	}
	ts, err := s.opts.Meetings.SearchTopics(ctx, in.MeetingID, in.Query, in.K)
	if err != nil {
		return nil, nil, err
	}
	if ts.Results == nil {
		ts.Results = []apiclient.ScoredTopic{}
	}
	return nil, meetingTopicsOutput{MeetingID: in.MeetingID, Results: ts.Results}, nil
}

func (s *session) meetingAsk(ctx context.Context, _ *mcp.CallToolRequest, in meetingAskInput) (*mcp.CallToolResult, any, error) {
	if s.opts.Meetings == nil {
		return nil, nil, errNoMeetings
	}
	if err := checkUUID("meeting_id", in.MeetingID, true); err != nil {
		return nil, nil, err
	}
	mode, err := askmode.Parse(in.Mode)
	if err != nil {
		return nil, nil, invalid("%v", err)
	}
	if mode == askmode.Answer && strings.TrimSpace(in.Question) == "" {
		return nil, nil, invalid("question is required in answer mode")
	}
	if !utf8.ValidString(in.Question) || utf8.RuneCountInString(in.Question) > maxQuestionRunes {
		return nil, nil, invalid("question must be valid UTF-8 of at most %d characters", maxQuestionRunes)
	}
	if in.SinceMS != nil && *in.SinceMS < 0 {
		return nil, nil, invalid("since_ms must not be negative")
	}
	res, err := s.opts.Meetings.Ask(ctx, in.MeetingID, apiclient.AskRequest{
		Question: in.Question, Mode: mode, ThreadID: in.ThreadID, SinceMS: in.SinceMS, AskerName: "mcp",
	})
	if err != nil {
		return nil, nil, err
	}
	if res.Citations == nil {
		res.Citations = []apiclient.Citation{}
	}
	return nil, res, nil
}
