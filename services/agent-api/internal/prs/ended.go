package prs

import (
	"context"
	"errors"

	"github.com/hibiken/asynq"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
)

// MeetingEnded enqueues the memory-bank update of an ended meeting. It is
// best effort: the meeting is ended either way, and a failure is logged.
func (s *Service) MeetingEnded(ctx context.Context, tenantID string, m store.Meeting) {
	if s.Queue == nil {
		return
	}
	task, err := memoryBankTask(ctx, tenantID, m)
	if err == nil {
		qctx, cancel := context.WithTimeout(ctx, enqueueTimeout)
		defer cancel()
		_, err = s.Queue.EnqueueContext(qctx, task)
	}
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		s.Log.WarnContext(ctx, "enqueue memory-bank update", "meeting_id", m.ID, "err", err)
	}
}

// memoryBankTask builds the memory:bank-update task of an ended meeting;
// a project name that is not valid falls back to membank.DefaultProject.
func memoryBankTask(ctx context.Context, tenantID string, m store.Meeting) (*asynq.Task, error) {
	project := ProjectOf(m, "")
	if membank.ValidateProject(project) != nil {
		project = membank.DefaultProject
	}
	p := &mithubv1.MemoryBankUpdateTask{TenantId: tenantID, MeetingId: m.ID, Project: project}
	if m.EndedAt != nil {
		p.EndedAtUnixMs = m.EndedAt.UnixMilli()
	}
	// The delay lets the flushed last L1 chunk reach Postgres first.
	return tasks.NewMemoryBankUpdateTaskContext(ctx, p, asynq.ProcessIn(memoryUpdateDelay))
}
