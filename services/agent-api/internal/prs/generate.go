package prs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hibiken/asynq"
	"google.golang.org/protobuf/encoding/protojson"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
)

// GenerateRequest asks for a meeting's PR.
type GenerateRequest struct {
	MeetingID string
	// Project overrides the meeting's metadata.project.
	Project string
	// RequestedBy names who asked (default: "tenant:" + TenantName).
	RequestedBy string
	TenantName  string
	// Wait for pending topic segmentation, at most L1Wait.
	Wait bool
	// Force builds even when nothing changed since the newest built PR.
	Force bool
}

// Generated is the PR a Generate returned. Queued: its pr:generate task
// is queued (a new PR, or the meeting's open one); otherwise it is the
// newest built PR, returned because nothing changed since.
type Generated struct {
	PR     meetingpr.PR
	Queued bool
}

// Generate syncs the meeting's context, waits for pending L1 work at most
// L1Wait (unless !Wait), snapshots the topics, creates the PR row and
// enqueues pr:generate. While the meeting has a queued or running PR, the
// same PR comes back (and its task is enqueued again if Redis lost it).
// When the meeting has no turns beyond its newest built PR for the same
// project, that PR comes back unqueued and nothing is built, unless Force.
func (s *Service) Generate(ctx context.Context, tenantID string, req GenerateRequest) (Generated, error) {
	if s.Queue == nil || s.PRs == nil {
		return Generated{}, unavailable("PR generation is not configured on this server")
	}
	id := req.MeetingID
	m, err := s.Meetings.GetMeeting(ctx, tenantID, id)
	if err != nil {
		return Generated{}, meetingErr(err)
	}
	project := ProjectOf(m, req.Project)
	if err := membank.ValidateProject(project); err != nil {
		return Generated{}, err
	}
	if open, err := s.PRs.OpenPR(ctx, tenantID, id); err == nil {
		return s.enqueue(ctx, tenantID, open, false)
	} else if !errors.Is(err, store.ErrNotFound) {
		return Generated{}, err
	}
	if !req.Force {
		if built, ok, err := s.unchangedSince(ctx, tenantID, id, project); err != nil {
			return Generated{}, err
		} else if ok {
			return Generated{PR: built}, nil
		}
	}
	snap, cursor, err := s.topicSnapshot(ctx, tenantID, m, req.Wait)
	if err != nil {
		return Generated{}, meetingErr(err)
	}
	lastID, err := s.PRs.LastTranscriptID(ctx, tenantID, id, cursor)
	if err != nil {
		return Generated{}, err
	}
	snapJSON, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(snap)
	if err != nil {
		return Generated{}, fmt.Errorf("encode topic snapshot: %w", err)
	}
	requestedBy := req.RequestedBy
	if requestedBy == "" {
		requestedBy = "tenant:" + req.TenantName
	}
	pr, created, err := s.PRs.CreatePR(ctx, tenantID, meetingpr.NewPR{
		MeetingID: id, Project: project, TopicSnapshot: snapJSON, LastTranscriptID: lastID, RequestedBy: requestedBy,
	})
	if err != nil {
		return Generated{}, meetingErr(err)
	}
	return s.enqueue(ctx, tenantID, pr, created)
}

// unchangedSince returns the meeting's newest built PR for project when
// no turn was stored after the ones it was built from.
func (s *Service) unchangedSince(ctx context.Context, tenantID, meetingID, project string) (meetingpr.PR, bool, error) {
	built, err := s.PRs.LatestBuiltPR(ctx, tenantID, meetingID)
	if errors.Is(err, store.ErrNotFound) {
		return meetingpr.PR{}, false, nil
	}
	if err != nil || built.Project != project {
		return meetingpr.PR{}, false, err
	}
	last, err := s.PRs.LastTranscriptID(ctx, tenantID, meetingID, math.MaxInt32)
	if err != nil {
		return meetingpr.PR{}, false, err
	}
	return built, last == built.LastTranscriptID, nil
}

// enqueue enqueues the PR's task. A task id conflict means the task is
// already queued, running or retained: nothing to do. When the enqueue
// fails, a PR this request created is marked failed so the meeting is not
// stuck with an open PR nobody builds.
func (s *Service) enqueue(ctx context.Context, tenantID string, pr meetingpr.PR, created bool) (Generated, error) {
	task, err := prTask(ctx, pr, tenantID)
	if err != nil {
		return Generated{}, err
	}
	qctx, cancel := context.WithTimeout(ctx, enqueueTimeout)
	defer cancel()
	if _, err := s.Queue.EnqueueContext(qctx, task); err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		s.Log.WarnContext(qctx, "enqueue pr:generate", "pr_id", pr.ID, "meeting_id", pr.MeetingID, "err", err)
		if created {
			fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), enqueueTimeout)
			defer fcancel()
			if _, ferr := s.PRs.FailPR(fctx, tenantID, pr.ID, "could not enqueue: "+err.Error()); ferr != nil {
				s.Log.ErrorContext(fctx, "mark unqueued PR failed", "pr_id", pr.ID, "err", ferr)
			}
		}
		return Generated{}, unavailable("the task queue is not reachable; try again")
	}
	return Generated{PR: pr, Queued: true}, nil
}

// prTask builds the pr:generate task from a PR row; its headers carry
// ctx's trace context.
func prTask(ctx context.Context, pr meetingpr.PR, tenantID string) (*asynq.Task, error) {
	snap := &mithubv1.TopicSnapshot{}
	if len(pr.TopicSnapshot) > 0 && string(pr.TopicSnapshot) != "{}" {
		if err := protojson.Unmarshal(pr.TopicSnapshot, snap); err != nil {
			return nil, fmt.Errorf("decode topic snapshot of PR %s: %w", pr.ID, err)
		}
	}
	return tasks.NewPRGenerateTaskContext(ctx, &mithubv1.PRGenerateTask{
		MeetingId: pr.MeetingID, PrId: pr.ID, TenantId: tenantID, Snapshot: snap,
		LastTranscriptId: pr.LastTranscriptID, RequestedBy: pr.RequestedBy,
	})
}

// topicSnapshot catches the cached context up with the meeting row,
// waits for L1 at most L1Wait when wait is set, and returns the topics
// with the seq up to which turns were synced.
func (s *Service) topicSnapshot(ctx context.Context, tenantID string, row store.Meeting, wait bool) (*mithubv1.TopicSnapshot, int, error) {
	m, err := s.Contexts.GetAt(ctx, tenantID, row.ID, row)
	if err != nil {
		return nil, 0, err
	}
	if wait {
		m.WaitL1(ctx, s.L1Wait)
	}
	snap := m.Snapshot()
	return toSnapshot(snap.Topics, snap.L1Cursor), snap.Cursor, nil
}

func toSnapshot(topics []meetingctx.Topic, l1Cursor int) *mithubv1.TopicSnapshot {
	out := &mithubv1.TopicSnapshot{TakenAtUnixMs: time.Now().UnixMilli(), CursorSeq: int32(l1Cursor)}
	for _, t := range topics {
		out.Topics = append(out.Topics, &mithubv1.Topic{
			Id: t.ID, Seq: int32(t.Seq), Title: t.Title, Summary: t.Summary, Keywords: t.Keywords,
			StartSeq: int32(t.StartSeq), EndSeq: int32(t.EndSeq), StartMs: t.StartMS, EndMs: t.EndMS,
		})
	}
	return out
}

// ProjectOf is the meeting's memory-bank project: requested, else
// metadata.project, else membank.DefaultProject.
func ProjectOf(m store.Meeting, requested string) string {
	if requested != "" {
		return requested
	}
	return m.Project()
}
