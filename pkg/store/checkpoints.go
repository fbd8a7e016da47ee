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
	if err := validCheckpoint(cp); err != nil {
		return err
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

func validCheckpoint(cp Checkpoint) error {
	if cp.ThreadID == "" || cp.Step < 0 || !json.Valid(cp.State) {
		return fmt.Errorf("save thread %q step %d: %w", cp.ThreadID, cp.Step, ErrInvalid)
	}
	return nil
}

// TenantCheckpoint is a checkpoint with its tenant, for batched saves.
type TenantCheckpoint struct {
	TenantID string
	Checkpoint
}

// saveCheckpoints inserts valid checkpoints of distinct threads in one
// statement, with SaveCheckpoint's rules, and reports which were written;
// a row not written broke a rule (or lost a race) and is for
// SaveCheckpoint to explain.
func (s *Store) saveCheckpoints(ctx context.Context, cps []TenantCheckpoint) ([]bool, error) {
	n := len(cps)
	threads, tenants, meetings, states := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	steps := make([]int32, n)
	for i, c := range cps {
		threads[i], tenants[i], meetings[i], steps[i], states[i] = c.ThreadID, c.TenantID, c.MeetingID, int32(c.Step), string(c.State)
	}
	rows, err := s.pool.Query(ctx, `INSERT INTO agent_checkpoints (thread_id, tenant_id, meeting_id, step, state)
		SELECT r.thread_id, r.tenant_id, m.id, r.step, r.state::jsonb
		FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::int[], $5::text[]) AS r(thread_id, tenant_id, meeting_id, step, state)
		JOIN meetings m ON m.id = r.meeting_id AND m.tenant_id = r.tenant_id
		WHERE NOT EXISTS (SELECT 1 FROM agent_checkpoints c
		                  WHERE c.tenant_id = r.tenant_id AND c.thread_id = r.thread_id AND c.meeting_id <> r.meeting_id)
		ON CONFLICT DO NOTHING
		RETURNING tenant_id::text, thread_id`, threads, tenants, meetings, steps, states)
	if err != nil {
		return nil, fmt.Errorf("save %d thread steps: %w", n, translate(err))
	}
	type thread struct{ tenantID, threadID string }
	written := map[thread]bool{}
	var t thread
	if _, err := pgx.ForEachRow(rows, []any{&t.tenantID, &t.threadID}, func() error {
		written[t] = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("save %d thread steps: %w", n, translate(err))
	}
	out := make([]bool, n)
	for i, c := range cps {
		out[i] = written[thread{c.TenantID, c.ThreadID}]
	}
	return out, nil
}
