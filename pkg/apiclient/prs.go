package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// PR statuses.
const (
	PRQueued    = "queued"
	PRRunning   = "running"
	PRSucceeded = "succeeded"
	PRFailed    = "failed"
	PRApproved  = "approved"
	PRRejected  = "rejected"
)

// PRRef is the answer of generate-pr.
type PRRef struct {
	PRID   string `json:"pr_id"`
	Status string `json:"status"`
}

// PR is a meeting's PR document and status (the lists of agenda items,
// decisions and action items are in Markdown).
type PR struct {
	ID        string `json:"id"`
	MeetingID string `json:"meeting_id"`
	Project   string `json:"project"`
	Status    string `json:"status"`
	Title     string `json:"title"`
	Markdown  string `json:"markdown"`
	Attempts  int    `json:"attempts"`
	Error     string `json:"error"`
	// CreatedAt and FinishedAt (nil while open) time the PR's build.
	CreatedAt  time.Time  `json:"created_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

// Done reports whether the PR is no longer queued or running.
func (p PR) Done() bool { return p.Status != PRQueued && p.Status != PRRunning }

// GeneratePR asks for the meeting's PR. With waitL1 the server first waits
// (bounded) for pending topic segmentation. While a PR is queued or
// running the server returns it again, so the call is retried like a read.
func (c *Client) GeneratePR(ctx context.Context, meetingID string, waitL1 bool) (PRRef, error) {
	var out PRRef
	suffix := "/generate-pr"
	if !waitL1 {
		suffix += "?wait=false"
	}
	if err := c.meetingCall(ctx, http.MethodPost, meetingID, suffix, struct{}{}, retryIdempotent, &out); err != nil {
		return PRRef{}, fmt.Errorf("generate PR of %s: %w", meetingID, err)
	}
	return out, nil
}

// GetPR returns a PR.
func (c *Client) GetPR(ctx context.Context, id string) (PR, error) {
	if id == "" {
		return PR{}, fmt.Errorf("get PR: empty id")
	}
	var out PR
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/prs/" + url.PathEscape(id), mode: retryIdempotent}, &out); err != nil {
		return PR{}, fmt.Errorf("get PR %s: %w", id, err)
	}
	return out, nil
}
