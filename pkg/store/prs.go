package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/membank"
)

const prColumns = `id, meeting_id, project, status, title, markdown, agenda, decisions, action_items,
	open_questions, memory_updates, topic_snapshot, last_transcript_id, requested_by, attempts, error,
	created_at, updated_at, started_at, finished_at, reviewed_at`

// createPRAttempts bounds the insert/look-up loop of CreatePR: the open PR
// it collided with may finish before it is read.
const createPRAttempts = 5

// CreatePR queues a new PR for the meeting, or returns the meeting's PR
// that is still queued or running (created false): a meeting has at most
// one open PR.
func (s *Store) CreatePR(ctx context.Context, tenantID string, n meetingpr.NewPR) (pr meetingpr.PR, created bool, err error) {
	if err := validateNewPR(n); err != nil {
		return meetingpr.PR{}, false, fmt.Errorf("create PR: %w", err)
	}
	snap := n.TopicSnapshot
	if len(snap) == 0 {
		snap = json.RawMessage(`{}`)
	}
	for range createPRAttempts {
		rows, err := s.pool.Query(ctx, `
			INSERT INTO pull_requests (tenant_id, meeting_id, project, topic_snapshot, last_transcript_id, requested_by)
			SELECT m.tenant_id, m.id, $3, $4, $5, $6 FROM meetings m WHERE m.id = $2 AND m.tenant_id = $1
			ON CONFLICT (meeting_id) WHERE status IN ('queued', 'running') DO NOTHING
			RETURNING `+prColumns, tenantID, n.MeetingID, n.Project, []byte(snap), n.LastTranscriptID, n.RequestedBy)
		if err != nil {
			return meetingpr.PR{}, false, fmt.Errorf("create PR for meeting %s: %w", n.MeetingID, translate(err))
		}
		pr, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[meetingpr.PR])
		if err == nil {
			return pr, true, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return meetingpr.PR{}, false, fmt.Errorf("create PR for meeting %s: %w", n.MeetingID, translate(err))
		}
		// Either the meeting is not the tenant's, or an open PR exists.
		if _, err := s.GetMeeting(ctx, tenantID, n.MeetingID); err != nil {
			return meetingpr.PR{}, false, err
		}
		open, err := s.OpenPR(ctx, tenantID, n.MeetingID)
		if err == nil {
			return open, false, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return meetingpr.PR{}, false, err
		}
		// The open PR finished in between: insert again.
	}
	return meetingpr.PR{}, false, fmt.Errorf("create PR for meeting %s: %w: open PR keeps changing", n.MeetingID, ErrConflict)
}

func validateNewPR(n meetingpr.NewPR) error {
	switch {
	case !isUUID(n.MeetingID):
		return fmt.Errorf("%w: meeting id %q is not a UUID", ErrInvalid, n.MeetingID)
	case n.LastTranscriptID < 0:
		return fmt.Errorf("%w: last_transcript_id must not be negative", ErrInvalid)
	case len(n.TopicSnapshot) > 0 && !json.Valid(n.TopicSnapshot):
		return fmt.Errorf("%w: topic snapshot is not JSON", ErrInvalid)
	}
	if err := validateProject(n.Project); err != nil {
		return err
	}
	return cleanText("requested_by", n.RequestedBy, 256)
}

// OpenPR returns the meeting's queued or running PR, or ErrNotFound.
func (s *Store) OpenPR(ctx context.Context, tenantID, meetingID string) (meetingpr.PR, error) {
	return s.onePR(ctx, "open PR of meeting "+meetingID, `SELECT `+prColumns+` FROM pull_requests
		WHERE tenant_id = $1 AND meeting_id = $2 AND status IN ('queued', 'running')`, tenantID, meetingID)
}

// LatestBuiltPR returns the meeting's newest PR that was built
// (succeeded, approved or rejected); ErrNotFound when there is none.
func (s *Store) LatestBuiltPR(ctx context.Context, tenantID, meetingID string) (meetingpr.PR, error) {
	return s.onePR(ctx, "latest built PR of meeting "+meetingID, `SELECT `+prColumns+` FROM pull_requests
		WHERE tenant_id = $1 AND meeting_id = $2 AND status IN ('succeeded', 'approved', 'rejected')
		ORDER BY created_at DESC, id DESC LIMIT 1`, tenantID, meetingID)
}

// GetPR returns the tenant's PR; another tenant's is ErrNotFound.
func (s *Store) GetPR(ctx context.Context, tenantID, id string) (meetingpr.PR, error) {
	if !isUUID(id) {
		return meetingpr.PR{}, fmt.Errorf("get PR %q: %w", id, ErrNotFound)
	}
	return s.onePR(ctx, "get PR "+id, `SELECT `+prColumns+` FROM pull_requests
		WHERE tenant_id = $1 AND id = $2`, tenantID, id)
}

// ListMeetingPRs returns the meeting's PRs, newest first. A meeting of
// another tenant is ErrNotFound.
func (s *Store) ListMeetingPRs(ctx context.Context, tenantID, meetingID string) ([]meetingpr.PR, error) {
	if _, err := s.GetMeeting(ctx, tenantID, meetingID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+prColumns+` FROM pull_requests
		WHERE tenant_id = $1 AND meeting_id = $2 ORDER BY created_at DESC, id LIMIT 1000`, tenantID, meetingID)
	if err != nil {
		return nil, fmt.Errorf("list PRs of meeting %s: %w", meetingID, translate(err))
	}
	prs, err := pgx.CollectRows(rows, pgx.RowToStructByName[meetingpr.PR])
	if err != nil {
		return nil, fmt.Errorf("list PRs of meeting %s: %w", meetingID, translate(err))
	}
	return prs, nil
}

// StartPR marks a queued (or, on a retry, running) PR running and counts
// the attempt. A PR that is already finished comes back unchanged with
// started false, so a redelivered task does no work twice.
func (s *Store) StartPR(ctx context.Context, tenantID, id string) (pr meetingpr.PR, started bool, err error) {
	pr, err = s.onePR(ctx, "start PR "+id, `UPDATE pull_requests
		SET status = 'running', attempts = attempts + 1, started_at = coalesce(started_at, now()), updated_at = now()
		WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'running')
		RETURNING `+prColumns, tenantID, id)
	if err == nil {
		return pr, true, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return meetingpr.PR{}, false, err
	}
	pr, err = s.GetPR(ctx, tenantID, id)
	return pr, false, err
}

// CompletePR writes the worker's content into the PR and marks it
// succeeded: an upsert by PR id, so writing the same content twice leaves
// one row with that content. A PR that was already reviewed (approved or
// rejected) is not changed: ErrConflict.
func (s *Store) CompletePR(ctx context.Context, tenantID, id string, c meetingpr.Content) (meetingpr.PR, error) {
	if err := validateContent(c); err != nil {
		return meetingpr.PR{}, fmt.Errorf("complete PR %s: %w", id, err)
	}
	pr, err := s.onePR(ctx, "complete PR "+id, `UPDATE pull_requests SET
			status = 'succeeded', title = $3, markdown = $4, agenda = $5, decisions = $6, action_items = $7,
			open_questions = $8, memory_updates = $9, error = '', finished_at = now(), updated_at = now()
		WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'running', 'succeeded', 'failed')
		RETURNING `+prColumns, tenantID, id, c.Title, c.Markdown, jsonList(c.Agenda), jsonList(c.Decisions),
		jsonList(c.ActionItems), jsonList(c.OpenQuestions), jsonList(c.MemoryUpdates))
	if errors.Is(err, ErrNotFound) {
		if cur, gerr := s.GetPR(ctx, tenantID, id); gerr == nil {
			return cur, fmt.Errorf("complete PR %s: it is %s: %w", id, cur.Status, ErrConflict)
		}
	}
	return pr, err
}

// FailPR marks a queued or running PR failed with msg (cut to
// meetingpr.MaxErrorLen). A finished PR is left as it is.
func (s *Store) FailPR(ctx context.Context, tenantID, id, msg string) (meetingpr.PR, error) {
	msg = strings.ToValidUTF8(strings.ReplaceAll(msg, "\x00", ""), "")
	if len(msg) > meetingpr.MaxErrorLen {
		msg = msg[:meetingpr.MaxErrorLen]
		for !utf8.ValidString(msg) {
			msg = msg[:len(msg)-1]
		}
	}
	pr, err := s.onePR(ctx, "fail PR "+id, `UPDATE pull_requests
		SET status = 'failed', error = $3, finished_at = now(), updated_at = now()
		WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'running')
		RETURNING `+prColumns, tenantID, id, msg)
	if errors.Is(err, ErrNotFound) {
		return s.GetPR(ctx, tenantID, id)
	}
	return pr, err
}

// RejectPR marks a succeeded or failed PR rejected. Rejecting a rejected
// PR changes nothing; any other status is ErrConflict.
func (s *Store) RejectPR(ctx context.Context, tenantID, id string) (meetingpr.PR, error) {
	pr, err := s.onePR(ctx, "reject PR "+id, `UPDATE pull_requests
		SET status = 'rejected', reviewed_at = now(), updated_at = now()
		WHERE tenant_id = $1 AND id = $2 AND status IN ('succeeded', 'failed')
		RETURNING `+prColumns, tenantID, id)
	if !errors.Is(err, ErrNotFound) {
		return pr, err
	}
	cur, err := s.GetPR(ctx, tenantID, id)
	if err != nil {
		return meetingpr.PR{}, err
	}
	if cur.Status == meetingpr.Rejected {
		return cur, nil
	}
	return cur, fmt.Errorf("reject PR %s: it is %s: %w", id, cur.Status, ErrConflict)
}

// ApprovePR applies an approval in one transaction: it locks the PR, which
// must be succeeded, locks the project's memory-bank categories, stores
// what merge returns for them, records statusContent as the meeting's
// project_status and marks the PR approved. Approving an approved PR
// changes nothing; any status other than succeeded is ErrConflict.
func (s *Store) ApprovePR(ctx context.Context, tenantID, id string, categories []string,
	merge membank.Merger, statusContent func(pr meetingpr.PR) string,
) (meetingpr.PR, error) {
	if !isUUID(id) {
		return meetingpr.PR{}, fmt.Errorf("approve PR %q: %w", id, ErrNotFound)
	}
	var out meetingpr.PR
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+prColumns+` FROM pull_requests
			WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, tenantID, id)
		if err != nil {
			return err
		}
		pr, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[meetingpr.PR])
		if err != nil {
			return err
		}
		switch pr.Status {
		case meetingpr.Approved:
			out = pr
			return nil
		case meetingpr.Succeeded:
		default:
			out = pr
			return fmt.Errorf("it is %s: %w", pr.Status, ErrConflict)
		}
		if err := mergeCategories(ctx, tx, tenantID, pr.Project, categories, merge); err != nil {
			return err
		}
		if err := putProjectStatus(ctx, tx, tenantID, pr.Project, pr.MeetingID, statusContent(pr)); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `UPDATE pull_requests SET status = 'approved', reviewed_at = now(), updated_at = now()
			WHERE id = $1 RETURNING `+prColumns, id)
		if err != nil {
			return err
		}
		out, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[meetingpr.PR])
		return err
	})
	if err != nil {
		return out, fmt.Errorf("approve PR %s: %w", id, translate(err))
	}
	return out, nil
}

// TranscriptsUpTo returns the meeting's transcripts with id <= lastID in
// seq order, at most limit (default 100,000); lastID 0 means all.
func (s *Store) TranscriptsUpTo(ctx context.Context, tenantID, meetingID string, lastID int64, limit int) ([]Transcript, error) {
	if limit <= 0 {
		limit = 100_000
	}
	if lastID <= 0 {
		lastID = 1<<63 - 1
	}
	rows, err := s.pool.Query(ctx, `SELECT `+transcriptColumns+` FROM transcripts
		WHERE meeting_id = $1 AND tenant_id = $2 AND id <= $3
		ORDER BY seq LIMIT $4`, meetingID, tenantID, lastID, limit)
	if err != nil {
		return nil, fmt.Errorf("read transcripts of %s up to id %d: %w", meetingID, lastID, translate(err))
	}
	ts, err := pgx.CollectRows(rows, pgx.RowToStructByName[Transcript])
	if err != nil {
		return nil, fmt.Errorf("read transcripts of %s up to id %d: %w", meetingID, lastID, translate(err))
	}
	return ts, nil
}

// LastTranscriptID is the highest transcript row id of the meeting among
// the turns with seq <= upToSeq, 0 when there is none.
func (s *Store) LastTranscriptID(ctx context.Context, tenantID, meetingID string, upToSeq int) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM transcripts
		WHERE meeting_id = $1 AND tenant_id = $2 AND seq <= $3`, meetingID, tenantID, upToSeq).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("last transcript of %s: %w", meetingID, translate(err))
	}
	return id, nil
}

func (s *Store) onePR(ctx context.Context, what, sql string, args ...any) (meetingpr.PR, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return meetingpr.PR{}, fmt.Errorf("%s: %w", what, translate(err))
	}
	pr, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[meetingpr.PR])
	if err != nil {
		return meetingpr.PR{}, fmt.Errorf("%s: %w", what, translate(err))
	}
	return pr, nil
}

func validateContent(c meetingpr.Content) error {
	for _, l := range []json.RawMessage{c.Agenda, c.Decisions, c.ActionItems, c.OpenQuestions, c.MemoryUpdates} {
		if len(l) > 0 && !json.Valid(l) {
			return fmt.Errorf("%w: PR content is not JSON", ErrInvalid)
		}
	}
	if err := cleanText("title", c.Title, 1000); err != nil {
		return err
	}
	return cleanText("markdown", c.Markdown, 8<<20)
}

// jsonList stores an absent list as [].
func jsonList(b json.RawMessage) []byte {
	if len(b) == 0 || string(b) == "null" {
		return []byte(`[]`)
	}
	return b
}

// cleanText checks a text field: valid UTF-8, no NUL, at most max bytes.
func cleanText(field, v string, max int) error {
	switch {
	case len(v) > max:
		return fmt.Errorf("%w: %s is longer than %d bytes", ErrInvalid, field, max)
	case !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0:
		return fmt.Errorf("%w: %s must be valid UTF-8 without NUL", ErrInvalid, field)
	}
	return nil
}

var _ meetingpr.Store = (*Store)(nil)
