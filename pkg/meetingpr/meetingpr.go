// Package meetingpr defines a meeting's PR: the post-meeting report
// (agenda, decisions, action items, open questions and proposed
// memory-bank updates) that pr-worker builds from a topic snapshot and a
// reviewer approves or rejects (docs/architecture.md §2.3). It holds the
// record, its status machine and the persistence contract; package store
// implements Store on PostgreSQL and package prdoc writes the content.
package meetingpr

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mithub/mithub/pkg/membank"
)

// Statuses. A PR is queued by the API, running while pr-worker builds it,
// then succeeded or failed; a succeeded PR is reviewed into approved or
// rejected.
const (
	Queued    = "queued"
	Running   = "running"
	Succeeded = "succeeded"
	Failed    = "failed"
	Approved  = "approved"
	Rejected  = "rejected"
)

// MaxErrorLen bounds the stored error message of a failed PR.
const MaxErrorLen = 2000

// PR is one generated post-meeting report. The JSON fields hold the
// document's lists as the worker wrote them.
type PR struct {
	ID               string          `db:"id"`
	MeetingID        string          `db:"meeting_id"`
	Project          string          `db:"project"`
	Status           string          `db:"status"`
	Title            string          `db:"title"`
	Markdown         string          `db:"markdown"`
	Agenda           json.RawMessage `db:"agenda"`
	Decisions        json.RawMessage `db:"decisions"`
	ActionItems      json.RawMessage `db:"action_items"`
	OpenQuestions    json.RawMessage `db:"open_questions"`
	MemoryUpdates    json.RawMessage `db:"memory_updates"`
	TopicSnapshot    json.RawMessage `db:"topic_snapshot"`
	LastTranscriptID int64           `db:"last_transcript_id"`
	RequestedBy      string          `db:"requested_by"`
	// Attempts counts how often a worker started building the PR.
	Attempts   int        `db:"attempts"`
	Error      string     `db:"error"`
	CreatedAt  time.Time  `db:"created_at"`
	UpdatedAt  time.Time  `db:"updated_at"`
	StartedAt  *time.Time `db:"started_at"`
	FinishedAt *time.Time `db:"finished_at"`
	ReviewedAt *time.Time `db:"reviewed_at"`
}

// Open reports whether a worker still has to build the PR.
func (p PR) Open() bool { return p.Status == Queued || p.Status == Running }

// NewPR is the input of Store.CreatePR.
type NewPR struct {
	MeetingID string
	Project   string
	// TopicSnapshot is the JSON of the topics the PR is built from.
	TopicSnapshot    json.RawMessage
	LastTranscriptID int64
	RequestedBy      string
}

// Content is what a worker writes into a PR. Every list is JSON.
type Content struct {
	Title         string
	Markdown      string
	Agenda        json.RawMessage
	Decisions     json.RawMessage
	ActionItems   json.RawMessage
	OpenQuestions json.RawMessage
	MemoryUpdates json.RawMessage
}

// Store is the persistence of PRs. Every method is scoped to a tenant:
// another tenant's PR or meeting is errdefs.ErrNotFound; a transition the
// status machine does not allow is errdefs.ErrConflict.
type Store interface {
	// CreatePR queues a PR for a meeting unless one is open (queued or
	// running), which it returns instead with created false.
	CreatePR(ctx context.Context, tenantID string, n NewPR) (pr PR, created bool, err error)
	// OpenPR returns the meeting's queued or running PR.
	OpenPR(ctx context.Context, tenantID, meetingID string) (PR, error)
	// LatestBuiltPR returns the meeting's newest succeeded or reviewed PR.
	LatestBuiltPR(ctx context.Context, tenantID, meetingID string) (PR, error)
	GetPR(ctx context.Context, tenantID, id string) (PR, error)
	ListMeetingPRs(ctx context.Context, tenantID, meetingID string) ([]PR, error)
	// StartPR marks a queued or running PR running and counts the
	// attempt; a finished PR comes back unchanged with started false.
	StartPR(ctx context.Context, tenantID, id string) (pr PR, started bool, err error)
	// CompletePR writes the content and marks the PR succeeded.
	CompletePR(ctx context.Context, tenantID, id string, c Content) (PR, error)
	// FailPR marks a queued or running PR failed with msg.
	FailPR(ctx context.Context, tenantID, id, msg string) (PR, error)
	// RejectPR marks a succeeded or failed PR rejected.
	RejectPR(ctx context.Context, tenantID, id string) (PR, error)
	// ApprovePR merges the PR's memory-bank updates, records the
	// project's status and marks the PR approved, in one transaction.
	ApprovePR(ctx context.Context, tenantID, id string, categories []string,
		merge membank.Merger, statusContent func(pr PR) string) (PR, error)
}
