package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mithub/mithub/pkg/membank"
)

// Meeting statuses.
const (
	MeetingActive = "active"
	MeetingEnded  = "ended"
)

// Meeting is one meeting with its running counters.
type Meeting struct {
	ID        string         `db:"id"`
	TenantID  string         `db:"tenant_id"`
	RoomName  string         `db:"room_name"`
	Title     string         `db:"title"`
	Language  string         `db:"language"`
	Status    string         `db:"status"`
	StartedAt time.Time      `db:"started_at"`
	EndedAt   *time.Time     `db:"ended_at"`
	Metadata  map[string]any `db:"metadata"`
	// Utterances is the number of stored transcripts; the last seq is
	// Utterances-1.
	Utterances int   `db:"next_seq"`
	Tokens     int64 `db:"tokens"`
	// TopicVersion counts the saves of the meeting's topics; a replica
	// whose cached topics are of an older version reloads them.
	TopicVersion int64 `db:"topic_version"`
	// EndPass is the last seq the end-of-meeting pass covered, -1 before
	// it ran.
	EndPass int `db:"l1_end_pass"`
}

// NewMeeting is the input of CreateMeeting.
type NewMeeting struct {
	RoomName string
	Title    string
	Language string
	Metadata map[string]any
	// StartedAt is when the meeting started; zero is now.
	StartedAt time.Time
}

const meetingColumns = `id, tenant_id, room_name, title, language, status, started_at, ended_at, metadata, next_seq, tokens,
	topic_version, l1_end_pass`

// rowToMeeting scans a row of meetingColumns, in their order. It is read
// on every ask, so it scans by position rather than by name.
func rowToMeeting(row pgx.CollectableRow) (Meeting, error) {
	var m Meeting
	err := row.Scan(&m.ID, &m.TenantID, &m.RoomName, &m.Title, &m.Language, &m.Status, &m.StartedAt, &m.EndedAt,
		&m.Metadata, &m.Utterances, &m.Tokens, &m.TopicVersion, &m.EndPass)
	return m, err
}

// CreateMeeting stores a new active meeting for the tenant.
func (s *Store) CreateMeeting(ctx context.Context, tenantID string, m NewMeeting) (Meeting, error) {
	if m.Metadata == nil {
		m.Metadata = map[string]any{}
	}
	rows, err := s.pool.Query(ctx, `
		INSERT INTO meetings (tenant_id, room_name, title, language, metadata, started_at)
		VALUES ($1, $2, $3, $4, $5, coalesce($6, now()))
		RETURNING `+meetingColumns, tenantID, m.RoomName, m.Title, m.Language, m.Metadata, startedAt(m.StartedAt))
	if err != nil {
		return Meeting{}, fmt.Errorf("create meeting: %w", translate(err))
	}
	out, err := pgx.CollectExactlyOneRow(rows, rowToMeeting)
	if err != nil {
		return Meeting{}, fmt.Errorf("create meeting: %w", translate(err))
	}
	return out, nil
}

func startedAt(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// ImportKeyField is the metadata field that holds an imported meeting's
// import key (migration 0007 keeps it unique per tenant).
const ImportKeyField = "import_sha256"

// CreateImportedMeeting stores a new active meeting whose
// metadata[ImportKeyField] is key, or returns the tenant's meeting that
// already has that key (created false), also when another import of the
// same key races this one.
func (s *Store) CreateImportedMeeting(ctx context.Context, tenantID string, m NewMeeting, key string) (Meeting, bool, error) {
	md := make(map[string]any, len(m.Metadata)+1)
	for k, v := range m.Metadata {
		md[k] = v
	}
	md[ImportKeyField] = key
	for attempt := 0; attempt < 2; attempt++ {
		rows, err := s.pool.Query(ctx, `
			INSERT INTO meetings (tenant_id, room_name, title, language, metadata, started_at)
			VALUES ($1, $2, $3, $4, $5, coalesce($6, now()))
			ON CONFLICT (tenant_id, (metadata->>'import_sha256')) WHERE metadata ? 'import_sha256' DO NOTHING
			RETURNING `+meetingColumns, tenantID, m.RoomName, m.Title, m.Language, md, startedAt(m.StartedAt))
		if err != nil {
			return Meeting{}, false, fmt.Errorf("create imported meeting: %w", translate(err))
		}
		ms, err := pgx.CollectRows(rows, rowToMeeting)
		if err != nil {
			return Meeting{}, false, fmt.Errorf("create imported meeting: %w", translate(err))
		}
		if len(ms) == 1 {
			return ms[0], true, nil
		}
		rows, err = s.pool.Query(ctx, `SELECT `+meetingColumns+` FROM meetings
			WHERE tenant_id = $1 AND metadata ? 'import_sha256' AND metadata->>'import_sha256' = $2`, tenantID, key)
		if err != nil {
			return Meeting{}, false, fmt.Errorf("find imported meeting: %w", translate(err))
		}
		if ms, err = pgx.CollectRows(rows, rowToMeeting); err != nil {
			return Meeting{}, false, fmt.Errorf("find imported meeting: %w", translate(err))
		}
		if len(ms) == 1 {
			return ms[0], false, nil
		}
		// Deleted between the two statements: insert again.
	}
	return Meeting{}, false, fmt.Errorf("create imported meeting: %w", ErrConflict)
}

// GetMeeting returns the tenant's meeting; another tenant's is ErrNotFound.
func (s *Store) GetMeeting(ctx context.Context, tenantID, id string) (Meeting, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+meetingColumns+` FROM meetings WHERE id = $1 AND tenant_id = $2`, id, tenantID)
	if err != nil {
		return Meeting{}, fmt.Errorf("get meeting %s: %w", id, translate(err))
	}
	m, err := pgx.CollectExactlyOneRow(rows, rowToMeeting)
	if err != nil {
		return Meeting{}, fmt.Errorf("get meeting %s: %w", id, translate(err))
	}
	return m, nil
}

// meetingsByID returns the meetings of ids, of any tenant, by id.
func (s *Store) meetingsByID(ctx context.Context, ids []string) (map[string]Meeting, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+meetingColumns+` FROM meetings WHERE id = ANY($1::uuid[])`, ids)
	if err != nil {
		return nil, translate(err)
	}
	ms, err := pgx.CollectRows(rows, rowToMeeting)
	if err != nil {
		return nil, translate(err)
	}
	out := make(map[string]Meeting, len(ms))
	for _, m := range ms {
		out[m.ID] = m
	}
	return out, nil
}

// ListMeetings returns the tenant's newest meetings first.
func (s *Store) ListMeetings(ctx context.Context, tenantID string, limit int) ([]Meeting, error) {
	if limit <= 0 || limit > 1000 {
		limit = 100
	}
	rows, err := s.pool.Query(ctx, `SELECT `+meetingColumns+` FROM meetings
		WHERE tenant_id = $1 ORDER BY started_at DESC, id LIMIT $2`, tenantID, limit)
	if err != nil {
		return nil, fmt.Errorf("list meetings: %w", translate(err))
	}
	ms, err := pgx.CollectRows(rows, rowToMeeting)
	if err != nil {
		return nil, fmt.Errorf("list meetings: %w", translate(err))
	}
	return ms, nil
}

// EndMeeting marks the meeting ended. Ending an ended meeting keeps its
// first ended_at.
func (s *Store) EndMeeting(ctx context.Context, tenantID, id string) (Meeting, error) {
	return s.EndMeetingAt(ctx, tenantID, id, time.Time{})
}

// EndMeetingAt marks the meeting ended at the given time (zero: now), as
// an import does with the end of its last segment. Ending an ended
// meeting keeps its first ended_at.
func (s *Store) EndMeetingAt(ctx context.Context, tenantID, id string, at time.Time) (Meeting, error) {
	rows, err := s.pool.Query(ctx, `
		UPDATE meetings SET status = 'ended', ended_at = coalesce(ended_at, $3, now())
		WHERE id = $1 AND tenant_id = $2
		RETURNING `+meetingColumns, id, tenantID, startedAt(at))
	if err != nil {
		return Meeting{}, fmt.Errorf("end meeting %s: %w", id, translate(err))
	}
	m, err := pgx.CollectExactlyOneRow(rows, rowToMeeting)
	if err != nil {
		return Meeting{}, fmt.Errorf("end meeting %s: %w", id, translate(err))
	}
	return m, nil
}

// Project is the meeting's memory-bank project: metadata.project, else
// membank.DefaultProject.
func (m Meeting) Project() string {
	if p, ok := m.Metadata["project"].(string); ok && p != "" {
		return p
	}
	return membank.DefaultProject
}
