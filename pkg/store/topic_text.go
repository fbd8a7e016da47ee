package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// TextHit is a topic found by words, with its full-text rank.
type TextHit struct {
	TopicRow
	Rank float64
}

// SearchTopicsText finds the tenant's topics whose title, summary or
// keywords contain any of terms as a word prefix (so a Korean stem also
// matches its forms with particles), ranked by ts_rank, best first.
// meetingID "" searches every meeting of the tenant.
func (s *Store) SearchTopicsText(ctx context.Context, tenantID, meetingID string, terms []string, k int) ([]TextHit, error) {
	if k <= 0 || k > 1000 {
		return nil, fmt.Errorf("%w: k must be 1..1000", ErrInvalid)
	}
	var parts []string
	for _, t := range terms {
		// Terms are letters and digits only (textutil.Terms); quote anyway.
		t = strings.NewReplacer("'", "", `\`, "", ":", "", "&", "", "|", "", "!", "", "(", "", ")", "").Replace(t)
		if t != "" {
			parts = append(parts, "'"+t+"':*")
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	query := strings.Join(parts, " | ")
	rows, err := s.pool.Query(ctx, `
		WITH q AS (SELECT to_tsquery('simple', $3) AS q)
		SELECT t.id, t.meeting_id, t.seq, t.title, t.summary, t.keywords, t.start_seq, t.end_seq,
		       t.start_ms, t.end_ms, t.merged_from, t.version, t.updated_at,
		       ts_rank(t.doc, q.q) AS rank
		FROM topics t CROSS JOIN q
		WHERE t.doc @@ q.q
		  AND t.tenant_id = $1 AND ($2 = '' OR t.meeting_id::text = $2)
		ORDER BY rank DESC, t.meeting_id, t.seq
		LIMIT $4`, tenantID, meetingID, query, k)
	if err != nil {
		return nil, fmt.Errorf("search topic text: %w", translate(err))
	}
	hits, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (TextHit, error) {
		var h TextHit
		err := row.Scan(&h.ID, &h.MeetingID, &h.Seq, &h.Title, &h.Summary, &h.Keywords, &h.StartSeq, &h.EndSeq,
			&h.StartMS, &h.EndMS, &h.MergedFrom, &h.Version, &h.UpdatedAt, &h.Rank)
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("search topic text: %w", translate(err))
	}
	return hits, nil
}
