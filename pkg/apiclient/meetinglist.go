package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
)

// MeetingList is the answer of GET /v1/meetings.
type MeetingList struct {
	Meetings []Meeting `json:"meetings"`
}

// ListMeetings returns the tenant's newest meetings first; limit <= 0
// takes the server's default (100).
func (c *Client) ListMeetings(ctx context.Context, limit int) ([]Meeting, error) {
	path := "/v1/meetings"
	if limit > 0 {
		path += "?limit=" + strconv.Itoa(limit)
	}
	var out MeetingList
	if err := c.do(ctx, call{method: http.MethodGet, path: path, mode: retryIdempotent}, &out); err != nil {
		return nil, fmt.Errorf("list meetings: %w", err)
	}
	return out.Meetings, nil
}
