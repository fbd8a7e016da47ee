package webhook

import (
	"encoding/json"
	"time"

	"github.com/mithub/mithub/pkg/meetingpr"
)

// EventID is the id of an event about subject (a meeting or PR id):
// "<event>:<subject>". The same thing happening again has the same id.
func EventID(event, subject string) string { return event + ":" + subject }

// MeetingData is the data of meeting.ended.
type MeetingData struct {
	MeetingID  string     `json:"meeting_id"`
	Title      string     `json:"title"`
	Project    string     `json:"project"`
	StartedAt  time.Time  `json:"started_at"`
	EndedAt    *time.Time `json:"ended_at"`
	Utterances int        `json:"utterances"`
}

// PRData is the data of pr.ready, pr.approved and pr.rejected: the PR's
// document (decisions, action items and open questions as the PR API
// gives them) and where to read it.
type PRData struct {
	PRID          string          `json:"pr_id"`
	MeetingID     string          `json:"meeting_id"`
	Project       string          `json:"project"`
	Status        string          `json:"status"`
	Title         string          `json:"title"`
	Markdown      string          `json:"markdown"`
	Decisions     json.RawMessage `json:"decisions"`
	ActionItems   json.RawMessage `json:"action_items"`
	OpenQuestions json.RawMessage `json:"open_questions"`
	// Path is the PR's API path (GET it, or with ?format=md).
	Path string `json:"path"`
}

// PRDataOf is the event data of pr.
func PRDataOf(pr meetingpr.PR) PRData {
	list := func(b json.RawMessage) json.RawMessage {
		if len(b) == 0 {
			return json.RawMessage(`[]`)
		}
		return b
	}
	return PRData{PRID: pr.ID, MeetingID: pr.MeetingID, Project: pr.Project, Status: pr.Status, Title: pr.Title,
		Markdown: pr.Markdown, Decisions: list(pr.Decisions), ActionItems: list(pr.ActionItems),
		OpenQuestions: list(pr.OpenQuestions), Path: "/v1/prs/" + pr.ID}
}

// MemoryBankData is the data of memory_bank.updated: which project
// changed and why (a meeting ended, or a PR was approved).
type MemoryBankData struct {
	Project    string   `json:"project"`
	MeetingID  string   `json:"meeting_id"`
	PRID       string   `json:"pr_id,omitempty"`
	Cause      string   `json:"cause"`
	Categories []string `json:"categories"`
	// Path is the project's memory-bank API path.
	Path string `json:"path"`
}

// Causes of memory_bank.updated.
const (
	CauseMeetingEnded = "meeting_ended"
	CausePRApproved   = "pr_approved"
)
