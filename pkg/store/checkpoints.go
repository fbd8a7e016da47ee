package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Checkpoint is one step of a multi-turn ask thread: the state after the
// step, so a follow-up resolves against the previous exchange, also after
// a restart or on another replica.
type Checkpoint struct {
	ThreadID  string          `db:"thread_id"`
	MeetingID string          `db:"meeting_id"`
	Step      int             `db:"step"`
	State     json.RawMessage `db:"state"`
	CreatedAt time.Time       `db:"created_at"`
}

// LatestCheckpoint returns the thread's last step in the meeting, or
// ErrNotFound when the thread has none.
func (s *Store) LatestCheckpoint(ctx context.Context, tenantID, meetingID, threadID string) (Checkpoint, error) {
	rows, err := s.pool.Query(ctx, `SELECT thread_id, meeting_id, step, state, created_at
		FROM agent_checkpoints WHERE tenant_id = $1 AND thread_id = $2 AND meeting_id = $3
		ORDER BY step DESC LIMIT 1`, tenantID, threadID, meetingID)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("load thread %s: %w", threadID, translate(err))
	}
	cp, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Checkpoint])
	if err != nil {
		return Checkpoint{}, fmt.Errorf("load thread %s: %w", threadID, translate(err))
	}
	return cp, nil
}

// SaveCheckpoint stores step of a thread. Steps are written once: saving a
// step that exists is ErrConflict (two asks raced on one thread), and a
// thread belongs to one meeting.
func (s *Store) SaveCheckpoint(ctx context.Context, tenantID string, cp Checkpoint) error {
	if cp.ThreadID == "" || cp.Step < 0 || !json.Valid(cp.State) {
		return fmt.Errorf("save thread %q step %d: %w", cp.ThreadID, cp.Step, ErrInvalid)
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO agent_checkpoints (thread_id, tenant_id, meeting_id, step, state)
		SELECT $1, $2, m.id, $4, $5 FROM meetings m
		WHERE m.id = $3 AND m.tenant_id = $2
		  AND NOT EXISTS (SELECT 1 FROM agent_checkpoints c
		                  WHERE c.tenant_id = $2 AND c.thread_id = $1 AND c.meeting_id <> $3)`,
		cp.ThreadID, tenantID, cp.MeetingID, cp.Step, []byte(cp.State))
	if err != nil {
		return fmt.Errorf("save thread %s step %d: %w", cp.ThreadID, cp.Step, translate(err))
	}
	if tag.RowsAffected() == 0 {
		if _, err := s.GetMeeting(ctx, tenantID, cp.MeetingID); errors.Is(err, ErrNotFound) {
			return fmt.Errorf("save thread %s: meeting %s: %w", cp.ThreadID, cp.MeetingID, ErrNotFound)
		}
		return fmt.Errorf("save thread %s: it belongs to another meeting: %w", cp.ThreadID, ErrConflict)
	}
	return nil
}
