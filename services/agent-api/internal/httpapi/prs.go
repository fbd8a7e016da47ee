package httpapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/services/agent-api/internal/prs"
)

// MemoryBankStore is the persistence the memory-bank routes use.
type MemoryBankStore interface {
	MemoryBank(ctx context.Context, tenantID, project string) ([]membank.Entry, error)
	MemoryEntryOf(ctx context.Context, tenantID, project, category string) (membank.Entry, error)
	PutMemoryEntry(ctx context.Context, tenantID, project, category, content string) (membank.Entry, error)
	MergeMemory(ctx context.Context, tenantID, project string, categories []string, merge membank.Merger) error
	ProjectStatuses(ctx context.Context, tenantID, project string, limit int) ([]membank.ProjectStatus, error)
}

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

// generatePR asks the PR use case for the meeting's PR (?wait=false
// skips the wait for topics, ?force=true builds even when nothing changed)
// → 202 {pr_id, status} when its task is queued, 200 with the newest
// built PR when nothing changed since it.
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
	tenant := tenantOf(c)
	g, err := s.PRFlow.Generate(c.UserContext(), tenant.ID, prs.GenerateRequest{
		MeetingID: id, Project: req.Project, RequestedBy: req.RequestedBy, TenantName: tenant.Name, Wait: wait, Force: force,
	})
	if err != nil {
		return err
	}
	status := fiber.StatusOK
	if g.Queued {
		status = fiber.StatusAccepted
	}
	c.Location("/v1/prs/" + g.PR.ID)
	return c.Status(status).JSON(generatePRJSON{PRID: g.PR.ID, Status: g.PR.Status})
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

func toPRJSON(p meetingpr.PR) prJSON {
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

func (s *Server) getPR(c *fiber.Ctx) error {
	id, err := prIDParam(c)
	if err != nil {
		return err
	}
	format := c.Query("format", "json")
	if format != "json" && format != "md" && format != "markdown" {
		return errInvalid("query parameter format must be json or md, got %q", truncate(format, 32))
	}
	pr, err := s.PRFlow.Get(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return err
	}
	if format != "json" {
		// The PR document alone, as Markdown (empty until it is built).
		c.Set(fiber.HeaderContentType, "text/markdown; charset=utf-8")
		c.Set(fiber.HeaderContentDisposition, `inline; filename="pr-`+pr.ID+`.md"`)
		return c.SendString(pr.Markdown)
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
	list, err := s.PRFlow.List(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return err
	}
	out := prListJSON{MeetingID: id, PRs: make([]prJSON, len(list))}
	for i, p := range list {
		out.PRs[i] = toPRJSON(p)
	}
	return c.JSON(out)
}

// approvePR approves a succeeded PR: its memory updates are merged into
// the project's memory bank (see prs.Service.Approve).
func (s *Server) approvePR(c *fiber.Ctx) error {
	id, err := prIDParam(c)
	if err != nil {
		return err
	}
	if err := decodeJSON(c, &struct{}{}, true); err != nil {
		return err
	}
	pr, err := s.PRFlow.Approve(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return err
	}
	return c.JSON(toPRJSON(pr))
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
	pr, err := s.PRFlow.Reject(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return err
	}
	return c.JSON(toPRJSON(pr))
}

// prsConfigured refuses the memory-bank routes when PRs are not
// configured.
func (s *Server) prsConfigured() error {
	if s.MemoryBank == nil {
		return errUnavailable("PRs are not configured on this server")
	}
	return nil
}
