package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// DefaultTranscriptPage is how many rows EachTranscript reads at once.
const DefaultTranscriptPage = 2000

// EachTranscript calls fn with every transcript of the meeting whose id is
// at most lastID (0: all), in seq order. It reads pageSize rows at a time
// (default DefaultTranscriptPage), each page after the last seq of the
// previous one (keyset on the meeting's unique (meeting_id, seq) index), so
// what it holds is one page whatever the size of the meeting. An error
// from fn stops the walk and is returned as is.
func (s *Store) EachTranscript(ctx context.Context, tenantID, meetingID string, lastID int64, pageSize int, fn func(Transcript) error) error {
	if pageSize <= 0 {
		pageSize = DefaultTranscriptPage
	}
	if lastID <= 0 {
		lastID = 1<<63 - 1
	}
	after := -1
	for {
		rows, err := s.pool.Query(ctx, `SELECT `+transcriptColumns+` FROM transcripts
			WHERE meeting_id = $1 AND tenant_id = $2 AND id <= $3 AND seq > $4
			ORDER BY seq LIMIT $5`, meetingID, tenantID, lastID, after, pageSize)
		if err != nil {
			return fmt.Errorf("read transcripts of %s after seq %d: %w", meetingID, after, translate(err))
		}
		page, err := pgx.CollectRows(rows, pgx.RowToStructByName[Transcript])
		if err != nil {
			return fmt.Errorf("read transcripts of %s after seq %d: %w", meetingID, after, translate(err))
		}
		for _, t := range page {
			if err := fn(t); err != nil {
				return err
			}
		}
		if len(page) < pageSize {
			return nil
		}
		after = page[len(page)-1].Seq
	}
}

// CountTranscriptsUpTo counts the meeting's transcripts with id <= lastID
// (0: all).
func (s *Store) CountTranscriptsUpTo(ctx context.Context, tenantID, meetingID string, lastID int64) (int, error) {
	if lastID <= 0 {
		lastID = 1<<63 - 1
	}
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM transcripts
		WHERE meeting_id = $1 AND tenant_id = $2 AND id <= $3`, meetingID, tenantID, lastID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count transcripts of %s: %w", meetingID, translate(err))
	}
	return n, nil
}
