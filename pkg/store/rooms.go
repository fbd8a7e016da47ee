package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ActiveMeetingForRoom returns the tenant's active meeting of a LiveKit
// room, creating it from m when the room has none; created says which.
// Callers on several replicas may race for the same room: a transaction
// advisory lock on (tenant, room) makes exactly one of them create the
// meeting and the others find it. m.RoomName is set to roomName.
func (s *Store) ActiveMeetingForRoom(ctx context.Context, tenantID, roomName string, m NewMeeting) (Meeting, bool, error) {
	if strings.TrimSpace(roomName) == "" {
		return Meeting{}, false, fmt.Errorf("%w: room name is empty", ErrInvalid)
	}
	if m.Metadata == nil {
		m.Metadata = map[string]any{}
	}
	var (
		out     Meeting
		created bool
	)
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 0))`,
			tenantID, roomName); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT `+meetingColumns+` FROM meetings
			WHERE tenant_id = $1 AND room_name = $2 AND status = 'active'
			ORDER BY started_at DESC, id LIMIT 1`, tenantID, roomName)
		if err != nil {
			return err
		}
		found, err := pgx.CollectRows(rows, rowToMeeting)
		if err != nil {
			return err
		}
		if len(found) == 1 {
			out = found[0]
			return nil
		}
		rows, err = tx.Query(ctx, `
			INSERT INTO meetings (tenant_id, room_name, title, language, metadata)
			VALUES ($1, $2, $3, $4, $5)
			RETURNING `+meetingColumns, tenantID, roomName, m.Title, m.Language, m.Metadata)
		if err != nil {
			return err
		}
		out, err = pgx.CollectExactlyOneRow(rows, rowToMeeting)
		created = err == nil
		return err
	})
	if err != nil {
		return Meeting{}, false, fmt.Errorf("active meeting of room %q: %w", roomName, translate(err))
	}
	return out, created, nil
}

// EndActiveMeetingsOfRoom marks every active meeting of the tenant's room
// ended and returns them; a room without one returns none.
func (s *Store) EndActiveMeetingsOfRoom(ctx context.Context, tenantID, roomName string) ([]Meeting, error) {
	rows, err := s.pool.Query(ctx, `
		UPDATE meetings SET status = 'ended', ended_at = coalesce(ended_at, now())
		WHERE tenant_id = $1 AND room_name = $2 AND status = 'active'
		RETURNING `+meetingColumns, tenantID, roomName)
	if err != nil {
		return nil, fmt.Errorf("end meetings of room %q: %w", roomName, translate(err))
	}
	ms, err := pgx.CollectRows(rows, rowToMeeting)
	if err != nil {
		return nil, fmt.Errorf("end meetings of room %q: %w", roomName, translate(err))
	}
	return ms, nil
}
