package prs

import (
	"context"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store"
)

// Store is the persistence of PRs; *store.Store implements it.
type Store interface {
	CreatePR(ctx context.Context, tenantID string, n meetingpr.NewPR) (meetingpr.PR, bool, error)
	OpenPR(ctx context.Context, tenantID, meetingID string) (meetingpr.PR, error)
	LatestBuiltPR(ctx context.Context, tenantID, meetingID string) (meetingpr.PR, error)
	GetPR(ctx context.Context, tenantID, id string) (meetingpr.PR, error)
	ListMeetingPRs(ctx context.Context, tenantID, meetingID string) ([]meetingpr.PR, error)
	FailPR(ctx context.Context, tenantID, id, msg string) (meetingpr.PR, error)
	RejectPR(ctx context.Context, tenantID, id string) (meetingpr.PR, error)
	ApprovePR(ctx context.Context, tenantID, id string, categories []string, merge membank.Merger, status func(meetingpr.PR) string) (meetingpr.PR, error)
	LastTranscriptID(ctx context.Context, tenantID, meetingID string, upToSeq int) (int64, error)
}

// Meetings reads meetings; *store.Store implements it.
type Meetings interface {
	GetMeeting(ctx context.Context, tenantID, id string) (store.Meeting, error)
}

// Contexts are the live meeting contexts; *meetingcache.Cache implements it.
type Contexts interface {
	// GetAt returns the context caught up with the meeting row the caller
	// has just read (turns, the end, and the topics the meeting's L1
	// owner saved).
	GetAt(ctx context.Context, tenantID, meetingID string, row store.Meeting) (*meetingctx.Manager, error)
}

// TaskQueue enqueues Asynq tasks; *asynq.Client implements it.
type TaskQueue interface {
	EnqueueContext(ctx context.Context, task *asynq.Task, opts ...asynq.Option) (*asynq.TaskInfo, error)
}

// Service runs the PR use cases. Without PRs every use case answers
// ErrUnavailable; without Queue, so does Generate, and MeetingEnded does
// nothing.
type Service struct {
	PRs      Store
	Queue    TaskQueue
	Meetings Meetings
	Contexts Contexts
	// L1Wait bounds how long Generate waits for topics.
	L1Wait time.Duration
	// MemoryBankMaxBytes bounds each memory-bank category's meeting
	// sections when a PR is approved (0: no bound; see prdoc.MergeSection).
	MemoryBankMaxBytes int
	Log                *slog.Logger
	// Events, when set, gets pr.approved, pr.rejected and
	// memory_bank.updated (webhooks).
	Events Events
}

// Events emits webhook events, best effort; *webhook.Emitter implements
// it.
type Events interface {
	EmitLogged(ctx context.Context, tenantID, event, eventID string, data any)
}

// memoryUpdateDelay is how long after a meeting ends its memory-bank
// update starts.
const memoryUpdateDelay = 5 * time.Second

// enqueueTimeout bounds one enqueue, so a Redis outage fails the request
// quickly instead of holding it.
const enqueueTimeout = 3 * time.Second

func (s *Service) configured() error {
	if s.PRs == nil {
		return unavailable("PRs are not configured on this server")
	}
	return nil
}

// Get returns the tenant's PR.
func (s *Service) Get(ctx context.Context, tenantID, id string) (meetingpr.PR, error) {
	if err := s.configured(); err != nil {
		return meetingpr.PR{}, err
	}
	pr, err := s.PRs.GetPR(ctx, tenantID, id)
	return pr, prErr(err)
}

// List returns the meeting's PRs.
func (s *Service) List(ctx context.Context, tenantID, meetingID string) ([]meetingpr.PR, error) {
	if err := s.configured(); err != nil {
		return nil, err
	}
	prs, err := s.PRs.ListMeetingPRs(ctx, tenantID, meetingID)
	return prs, meetingErr(err)
}
