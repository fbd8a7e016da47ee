package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/hibiken/asynq"
	"google.golang.org/protobuf/encoding/protojson"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
)

// PRStore is the persistence of PRs and the memory bank.
type PRStore interface {
	CreatePR(ctx context.Context, tenantID string, n store.NewPR) (store.PR, bool, error)
	OpenPR(ctx context.Context, tenantID, meetingID string) (store.PR, error)
	LatestBuiltPR(ctx context.Context, tenantID, meetingID string) (store.PR, error)
	GetPR(ctx context.Context, tenantID, id string) (store.PR, error)
	ListMeetingPRs(ctx context.Context, tenantID, meetingID string) ([]store.PR, error)
	FailPR(ctx context.Context, tenantID, id, msg string) (store.PR, error)
	RejectPR(ctx context.Context, tenantID, id string) (store.PR, error)
	ApprovePR(ctx context.Context, tenantID, id string, categories []string, merge membank.Merger, status func(store.PR) string) (store.PR, error)
	LastTranscriptID(ctx context.Context, tenantID, meetingID string, upToSeq int) (int64, error)
	MemoryBank(ctx context.Context, tenantID, project string) ([]membank.Entry, error)
	MemoryEntryOf(ctx context.Context, tenantID, project, category string) (membank.Entry, error)
	PutMemoryEntry(ctx context.Context, tenantID, project, category, content string) (membank.Entry, error)
	MergeMemory(ctx context.Context, tenantID, project string, categories []string, merge membank.Merger) error
	ProjectStatuses(ctx context.Context, tenantID, project string, limit int) ([]membank.ProjectStatus, error)
}

// TaskQueue enqueues Asynq tasks; *asynq.Client implements it.
type TaskQueue interface {
	EnqueueContext(ctx context.Context, task *asynq.Task, opts ...asynq.Option) (*asynq.TaskInfo, error)
}

// DefaultProject is the memory-bank project of a meeting whose metadata
// names none.
const DefaultProject = membank.DefaultProject

// memoryUpdateDelay is how long after a meeting ends its memory-bank
// update starts.
const memoryUpdateDelay = 5 * time.Second

// enqueueTimeout bounds one enqueue, so a Redis outage fails the request
// quickly instead of holding it.
const enqueueTimeout = 3 * time.Second

type generatePRRequest struct {
	// Project overrides the meeting's metadata.project.
	Project string `json:"project"`
	// RequestedBy names who asked (default: the tenant).
	RequestedBy string `json:"requested_by"`
}

type generatePRJSON struct {
	PRID   string `json:"pr_id"`
	Status string `json:"status"`
}

func errUnavailable(msg string) error {
	return &apiError{Status: fiber.StatusServiceUnavailable, Code: codeUnavailable, Message: msg}
}

// generatePR syncs the meeting's context, waits for pending L1 work at
// most L1Wait (skip it with ?wait=false), snapshots the topics, creates
// the PR row and enqueues pr:generate → 202 {pr_id, status}. While the
// meeting has a queued or running PR, the same PR comes back (and its task
// is enqueued again if Redis lost it). When the meeting has no turns
// beyond its newest built PR for the same project, that PR comes back with
// 200 and nothing is built, unless ?force=true.
func (s *Server) generatePR(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	wait := true
	if c.Query("wait") != "" {
		if wait, err = boolQuery(c, "wait"); err != nil {
			return err
		}
	}
	force := false
	if c.Query("force") != "" {
		if force, err = boolQuery(c, "force"); err != nil {
			return err
		}
	}
	var req generatePRRequest
	if err := decodeJSON(c, &req, true); err != nil {
		return err
	}
	if err := checkText("requested_by", req.RequestedBy, 256); err != nil {
		return err
	}
	if s.Queue == nil || s.PRs == nil {
		return errUnavailable("PR generation is not configured on this server")
	}
	ctx, tenant := c.UserContext(), tenantOf(c)
	m, err := s.Store.GetMeeting(ctx, tenant.ID, id)
	if err != nil {
		return meetingErr(err)
	}
	project := projectOf(m, req.Project)
	if err := membank.ValidateProject(project); err != nil {
		return err
	}
	if open, err := s.PRs.OpenPR(ctx, tenant.ID, id); err == nil {
		return s.acceptPR(c, open, false)
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}

	if !force {
		if built, ok, err := s.unchangedSince(ctx, tenant.ID, id, project); err != nil {
			return err
		} else if ok {
			c.Location("/v1/prs/" + built.ID)
			return c.Status(fiber.StatusOK).JSON(generatePRJSON{PRID: built.ID, Status: built.Status})
		}
	}

	snap, cursor, err := s.topicSnapshot(ctx, tenant.ID, id, wait)
	if err != nil {
		return meetingErr(err)
	}
	lastID, err := s.PRs.LastTranscriptID(ctx, tenant.ID, id, cursor)
	if err != nil {
		return err
	}
	snapJSON, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(snap)
	if err != nil {
		return fmt.Errorf("encode topic snapshot: %w", err)
	}
	requestedBy := req.RequestedBy
	if requestedBy == "" {
		requestedBy = "tenant:" + tenant.Name
	}
	pr, created, err := s.PRs.CreatePR(ctx, tenant.ID, store.NewPR{
		MeetingID: id, Project: project, TopicSnapshot: snapJSON, LastTranscriptID: lastID, RequestedBy: requestedBy,
	})
	if err != nil {
		return meetingErr(err)
	}
	return s.acceptPR(c, pr, created)
}

// unchangedSince returns the meeting's newest built PR for project when
// no turn was stored after the ones it was built from.
func (s *Server) unchangedSince(ctx context.Context, tenantID, meetingID, project string) (store.PR, bool, error) {
	built, err := s.PRs.LatestBuiltPR(ctx, tenantID, meetingID)
	if errors.Is(err, store.ErrNotFound) {
		return store.PR{}, false, nil
	}
	if err != nil || built.Project != project {
		return store.PR{}, false, err
	}
	last, err := s.PRs.LastTranscriptID(ctx, tenantID, meetingID, math.MaxInt32)
	if err != nil {
		return store.PR{}, false, err
	}
	return built, last == built.LastTranscriptID, nil
}

// acceptPR enqueues the PR's task and answers 202. A task id conflict
// means the task is already queued, running or retained: nothing to do.
// When the enqueue fails, a PR this request created is marked failed so
// the meeting is not stuck with an open PR nobody builds.
func (s *Server) acceptPR(c *fiber.Ctx, pr store.PR, created bool) error {
	task, err := prTask(pr, tenantOf(c).ID)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), enqueueTimeout)
	defer cancel()
	if _, err := s.Queue.EnqueueContext(ctx, task); err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		s.Log.WarnContext(ctx, "enqueue pr:generate", "pr_id", pr.ID, "meeting_id", pr.MeetingID, "err", err)
		if created {
			fctx, fcancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), enqueueTimeout)
			defer fcancel()
			if _, ferr := s.PRs.FailPR(fctx, tenantOf(c).ID, pr.ID, "could not enqueue: "+err.Error()); ferr != nil {
				s.Log.ErrorContext(fctx, "mark unqueued PR failed", "pr_id", pr.ID, "err", ferr)
			}
		}
		return errUnavailable("the task queue is not reachable; try again")
	}
	c.Location("/v1/prs/" + pr.ID)
	return c.Status(fiber.StatusAccepted).JSON(generatePRJSON{PRID: pr.ID, Status: pr.Status})
}

// prTask builds the pr:generate task from a PR row.
func prTask(pr store.PR, tenantID string) (*asynq.Task, error) {
	snap := &mithubv1.TopicSnapshot{}
	if len(pr.TopicSnapshot) > 0 && string(pr.TopicSnapshot) != "{}" {
		if err := protojson.Unmarshal(pr.TopicSnapshot, snap); err != nil {
			return nil, fmt.Errorf("decode topic snapshot of PR %s: %w", pr.ID, err)
		}
	}
	return tasks.NewPRGenerateTask(&mithubv1.PRGenerateTask{
		MeetingId: pr.MeetingID, PrId: pr.ID, TenantId: tenantID, Snapshot: snap,
		LastTranscriptId: pr.LastTranscriptID, RequestedBy: pr.RequestedBy,
	})
}

// topicSnapshot syncs the cached context with Postgres, waits for L1 at
// most L1Wait when wait is set, and returns the topics with the seq up to
// which turns were synced.
func (s *Server) topicSnapshot(ctx context.Context, tenantID, meetingID string, wait bool) (*mithubv1.TopicSnapshot, int, error) {
	m, err := s.Contexts.GetSynced(ctx, tenantID, meetingID)
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

// projectOf is the meeting's memory-bank project: the request's, else
// metadata.project, else DefaultProject.
func projectOf(m store.Meeting, requested string) string {
	if requested != "" {
		return requested
	}
	return m.Project()
}

type prJSON struct {
	ID               string          `json:"id"`
	MeetingID        string          `json:"meeting_id"`
	Project          string          `json:"project"`
	Status           string          `json:"status"`
	Title            string          `json:"title"`
	Markdown         string          `json:"markdown"`
	Agenda           json.RawMessage `json:"agenda"`
	Decisions        json.RawMessage `json:"decisions"`
	ActionItems      json.RawMessage `json:"action_items"`
	OpenQuestions    json.RawMessage `json:"open_questions"`
	MemoryUpdates    json.RawMessage `json:"memory_updates"`
	LastTranscriptID int64           `json:"last_transcript_id"`
	RequestedBy      string          `json:"requested_by"`
	Attempts         int             `json:"attempts"`
	Error            string          `json:"error"`
	CreatedAt        time.Time       `json:"created_at"`
	UpdatedAt        time.Time       `json:"updated_at"`
	StartedAt        *time.Time      `json:"started_at"`
	FinishedAt       *time.Time      `json:"finished_at"`
	ReviewedAt       *time.Time      `json:"reviewed_at"`
}

func toPRJSON(p store.PR) prJSON {
	list := func(b json.RawMessage) json.RawMessage {
		if len(b) == 0 {
			return json.RawMessage(`[]`)
		}
		return b
	}
	return prJSON{
		ID: p.ID, MeetingID: p.MeetingID, Project: p.Project, Status: p.Status, Title: p.Title, Markdown: p.Markdown,
		Agenda: list(p.Agenda), Decisions: list(p.Decisions), ActionItems: list(p.ActionItems),
		OpenQuestions: list(p.OpenQuestions), MemoryUpdates: list(p.MemoryUpdates),
		LastTranscriptID: p.LastTranscriptID, RequestedBy: p.RequestedBy, Attempts: p.Attempts, Error: p.Error,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, StartedAt: p.StartedAt, FinishedAt: p.FinishedAt, ReviewedAt: p.ReviewedAt,
	}
}

// prIDParam returns the route's PR id in canonical form.
func prIDParam(c *fiber.Ctx) (string, error) {
	raw := c.Params("id")
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return "", errInvalid("PR id %q is not a UUID", truncate(raw, 64))
	}
	return id.String(), nil
}

func prErr(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return errNotFound("PR")
	}
	return err
}

func (s *Server) prsConfigured() error {
	if s.PRs == nil {
		return errUnavailable("PRs are not configured on this server")
	}
	return nil
}

func (s *Server) getPR(c *fiber.Ctx) error {
	id, err := prIDParam(c)
	if err != nil {
		return err
	}
	if err := s.prsConfigured(); err != nil {
		return err
	}
	pr, err := s.PRs.GetPR(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return prErr(err)
	}
	return c.JSON(toPRJSON(pr))
}

type prListJSON struct {
	MeetingID string   `json:"meeting_id"`
	PRs       []prJSON `json:"prs"`
}

func (s *Server) listMeetingPRs(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	if err := s.prsConfigured(); err != nil {
		return err
	}
	prs, err := s.PRs.ListMeetingPRs(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return meetingErr(err)
	}
	out := prListJSON{MeetingID: id, PRs: make([]prJSON, len(prs))}
	for i, p := range prs {
		out.PRs[i] = toPRJSON(p)
	}
	return c.JSON(out)
}

// approvePR merges the PR's memory updates into the project's memory bank
// (each meeting keeps one section per category; decisions form a ledger
// with their meeting and date), records the project status as of the
// meeting and marks the PR approved, in one transaction. Only a succeeded
// PR can be approved; approving an approved PR changes nothing.
func (s *Server) approvePR(c *fiber.Ctx) error {
	id, err := prIDParam(c)
	if err != nil {
		return err
	}
	if err := decodeJSON(c, &struct{}{}, true); err != nil {
		return err
	}
	if err := s.prsConfigured(); err != nil {
		return err
	}
	ctx, tenant := c.UserContext(), tenantOf(c)
	pr, err := s.PRs.GetPR(ctx, tenant.ID, id)
	if err != nil {
		return prErr(err)
	}
	var updates []prdoc.MemoryUpdate
	if err := json.Unmarshal(pr.MemoryUpdates, &updates); err != nil {
		return fmt.Errorf("decode memory updates of PR %s: %w", id, err)
	}
	merge := func(cur map[string]string) (map[string]string, error) {
		return prdoc.Merge(cur, pr.MeetingID, updates, s.MemoryBankMaxBytes)
	}
	approved, err := s.PRs.ApprovePR(ctx, tenant.ID, id, prdoc.Categories(updates), merge, statusOf)
	if errors.Is(err, store.ErrConflict) {
		return &apiError{Status: fiber.StatusConflict, Code: codeConflict,
			Message: fmt.Sprintf("PR is %s; only a succeeded PR can be approved", approved.Status)}
	}
	if err != nil {
		return prErr(err)
	}
	return c.JSON(toPRJSON(approved))
}

// statusOf is the project status recorded when a PR is approved.
func statusOf(pr store.PR) string {
	var d prdoc.Document
	_ = json.Unmarshal(pr.Agenda, &d.Agenda)
	_ = json.Unmarshal(pr.Decisions, &d.Decisions)
	_ = json.Unmarshal(pr.ActionItems, &d.ActionItems)
	_ = json.Unmarshal(pr.OpenQuestions, &d.OpenQuestions)
	in := prdoc.Input{MeetingID: pr.MeetingID, MeetingTitle: pr.Title}
	return prdoc.StatusMarkdown(in, d, time.Now())
}

// rejectPR marks a succeeded or failed PR rejected; nothing is merged.
func (s *Server) rejectPR(c *fiber.Ctx) error {
	id, err := prIDParam(c)
	if err != nil {
		return err
	}
	if err := decodeJSON(c, &struct{}{}, true); err != nil {
		return err
	}
	if err := s.prsConfigured(); err != nil {
		return err
	}
	pr, err := s.PRs.RejectPR(c.UserContext(), tenantOf(c).ID, id)
	if errors.Is(err, store.ErrConflict) {
		return &apiError{Status: fiber.StatusConflict, Code: codeConflict,
			Message: fmt.Sprintf("PR is %s; only a succeeded or failed PR can be rejected", pr.Status)}
	}
	if err != nil {
		return prErr(err)
	}
	return c.JSON(toPRJSON(pr))
}

// meetingEnded enqueues the memory-bank update of an ended meeting. It is
// best effort: the meeting is ended either way, and a failure is logged.
func (s *Server) meetingEnded(ctx context.Context, tenantID string, m store.Meeting) {
	if s.Queue == nil {
		return
	}
	project := projectOf(m, "")
	if membank.ValidateProject(project) != nil {
		project = DefaultProject
	}
	p := &mithubv1.MemoryBankUpdateTask{TenantId: tenantID, MeetingId: m.ID, Project: project}
	if m.EndedAt != nil {
		p.EndedAtUnixMs = m.EndedAt.UnixMilli()
	}
	// The delay lets the flushed last L1 chunk reach Postgres first.
	task, err := tasks.NewMemoryBankUpdateTask(p, asynq.ProcessIn(memoryUpdateDelay))
	if err == nil {
		qctx, cancel := context.WithTimeout(ctx, enqueueTimeout)
		defer cancel()
		_, err = s.Queue.EnqueueContext(qctx, task)
	}
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		s.Log.WarnContext(ctx, "enqueue memory-bank update", "meeting_id", m.ID, "err", err)
	}
}
