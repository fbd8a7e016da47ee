package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Topic is an L1 topic of a meeting.
type Topic struct {
	ID       string   `json:"id"`
	Seq      int      `json:"seq"`
	Title    string   `json:"title"`
	Summary  string   `json:"summary"`
	Keywords []string `json:"keywords"`
	StartSeq int      `json:"start_seq"`
	EndSeq   int      `json:"end_seq"`
	StartMS  int64    `json:"start_ms"`
	EndMS    int64    `json:"end_ms"`
}

// TopicList is a meeting's topics in order.
type TopicList struct {
	MeetingID    string  `json:"meeting_id"`
	L1Cursor     int     `json:"l1_cursor"`
	PendingTurns int     `json:"pending_turns"`
	Topics       []Topic `json:"topics"`
}

// ScoredTopic is a search hit.
type ScoredTopic struct {
	Topic
	MeetingID string  `json:"meeting_id,omitempty"`
	Score     float64 `json:"score"`
}

// TopicSearch is the answer of a topic search.
type TopicSearch struct {
	Query   string        `json:"query"`
	Results []ScoredTopic `json:"results"`
}

// Topics lists the meeting's L1 topics.
func (c *Client) Topics(ctx context.Context, meetingID string) (TopicList, error) {
	var tl TopicList
	if err := c.meetingCall(ctx, http.MethodGet, meetingID, "/topics", nil, retryIdempotent, &tl); err != nil {
		return TopicList{}, fmt.Errorf("list topics of %s: %w", meetingID, err)
	}
	return tl, nil
}

// SearchTopics ranks the meeting's topics for a query; k <= 0 takes the
// server's default.
func (c *Client) SearchTopics(ctx context.Context, meetingID, query string, k int) (TopicSearch, error) {
	var ts TopicSearch
	if err := c.meetingCall(ctx, http.MethodGet, meetingID, "/topics?"+searchQuery(query, k), nil, retryIdempotent, &ts); err != nil {
		return TopicSearch{}, fmt.Errorf("search topics of %s: %w", meetingID, err)
	}
	return ts, nil
}

// Search ranks topics across all the tenant's meetings.
func (c *Client) Search(ctx context.Context, query string, k int) (TopicSearch, error) {
	var ts TopicSearch
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/search?" + searchQuery(query, k), mode: retryIdempotent}, &ts); err != nil {
		return TopicSearch{}, fmt.Errorf("search: %w", err)
	}
	return ts, nil
}

// WaitL1 asks for the meeting's context after waiting (at most the server's
// bound) for pending topic segmentation, and returns the highest seq
// covered by topics and the last seq.
func (c *Client) WaitL1(ctx context.Context, meetingID string) (l1Cursor, cursor int, err error) {
	var doc struct {
		Cursor int `json:"cursor"`
		L1     struct {
			Cursor int `json:"cursor"`
		} `json:"l1"`
	}
	if err := c.meetingCall(ctx, http.MethodGet, meetingID, "/context?wait=true", nil, retryIdempotent, &doc); err != nil {
		return 0, 0, fmt.Errorf("wait for topics of %s: %w", meetingID, err)
	}
	return doc.L1.Cursor, doc.Cursor, nil
}

func searchQuery(q string, k int) string {
	v := url.Values{"q": {q}}
	if k > 0 {
		v.Set("k", strconv.Itoa(k))
	}
	return v.Encode()
}

// WaitTopics waits, one bounded server-side wait after another, until the
// meeting's topics cover seq last, or bound has passed.
func (c *Client) WaitTopics(ctx context.Context, meetingID string, last int, bound time.Duration) error {
	deadline := time.Now().Add(bound)
	for {
		l1, _, err := c.WaitL1(ctx, meetingID)
		if err != nil {
			return err
		}
		if l1 >= last {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("topics of %s cover seq %d of %d after %s", meetingID, l1, last, bound)
		}
	}
}

// TurnHit is a turn search hit.
type TurnHit struct {
	Seq         int     `json:"seq"`
	SpeakerName string  `json:"speaker_name"`
	StartMS     int64   `json:"start_ms"`
	Text        string  `json:"text"`
	Score       float64 `json:"score"`
	TopicID     string  `json:"topic_id"`
}

// TurnSearch is the answer of SearchTurns.
type TurnSearch struct {
	MeetingID string    `json:"meeting_id"`
	Query     string    `json:"query"`
	Hits      []TurnHit `json:"hits"`
}

// SearchTurns ranks the meeting's turns for a query (GET
// /v1/meetings/{id}/search), best first; k <= 0 takes the server's
// default.
func (c *Client) SearchTurns(ctx context.Context, meetingID, query string, k int) (TurnSearch, error) {
	var ts TurnSearch
	if err := c.meetingCall(ctx, http.MethodGet, meetingID, "/search?"+searchQuery(query, k), nil, retryIdempotent, &ts); err != nil {
		return TurnSearch{}, fmt.Errorf("search turns of %s: %w", meetingID, err)
	}
	return ts, nil
}
