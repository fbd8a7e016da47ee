package store

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TopicRow is one persisted L1 topic of a meeting.
type TopicRow struct {
	ID        string   `db:"id"`
	MeetingID string   `db:"meeting_id"`
	Seq       int      `db:"seq"`
	Title     string   `db:"title"`
	Summary   string   `db:"summary"`
	Keywords  []string `db:"keywords"`
	StartSeq  int      `db:"start_seq"`
	EndSeq    int      `db:"end_seq"`
	StartMS   int64    `db:"start_ms"`
	EndMS     int64    `db:"end_ms"`
	// Embedding of the summary; nil when the topic is not embedded, which
	// is stored as NULL (never as a zero vector).
	Embedding  []float32 `db:"embedding"`
	MergedFrom []string  `db:"merged_from"`
	Version    int       `db:"version"`
	// UpdatedAt is set by the store when the row last changed.
	UpdatedAt time.Time `db:"updated_at"`
}

// ScoredTopic is a search hit.
type ScoredTopic struct {
	TopicRow
	// Score is the cosine similarity between the query and the topic's
	// embedding, in [-1, 1].
	Score float64 `db:"score"`
}

// MaxSearchK bounds SearchTopics' k (pgvector's hnsw.ef_search maximum).
const MaxSearchK = 1000

const topicColumns = `id, meeting_id, seq, title, summary, keywords, start_seq, end_seq,
	start_ms, end_ms, embedding, merged_from::text[] AS merged_from, version, updated_at`

// validateTopics checks a whole replacement list before anything is written.
func validateTopics(topics []TopicRow, dim int) error {
	ids := make(map[string]bool, len(topics))
	seqs := make(map[int]bool, len(topics))
	for i, t := range topics {
		if err := validateTopic(t, dim); err != nil {
			return fmt.Errorf("topic %d: %w", i, err)
		}
		if ids[t.ID] {
			return fmt.Errorf("%w: topic %d: id %s appears twice", ErrInvalid, i, t.ID)
		}
		if seqs[t.Seq] {
			return fmt.Errorf("%w: topic %d: seq %d appears twice", ErrInvalid, i, t.Seq)
		}
		ids[t.ID], seqs[t.Seq] = true, true
	}
	return nil
}

func validateTopic(t TopicRow, dim int) error {
	switch {
	case !isUUID(t.ID):
		return fmt.Errorf("%w: id %q is not a UUID", ErrInvalid, t.ID)
	case t.Seq < 0:
		return fmt.Errorf("%w: seq must not be negative", ErrInvalid)
	case t.StartSeq < 0 || t.EndSeq < t.StartSeq:
		return fmt.Errorf("%w: need 0 <= start_seq <= end_seq", ErrInvalid)
	case t.StartMS < 0 || t.EndMS < t.StartMS:
		return fmt.Errorf("%w: need 0 <= start_ms <= end_ms", ErrInvalid)
	case t.Seq > math.MaxInt32 || t.EndSeq > math.MaxInt32 || t.Version > math.MaxInt32:
		return fmt.Errorf("%w: seq, end_seq and version must fit in 32 bits", ErrInvalid)
	}
	for _, s := range append([]string{t.Title, t.Summary}, t.Keywords...) {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return fmt.Errorf("%w: title, summary and keywords must be valid UTF-8 without NUL", ErrInvalid)
		}
	}
	for _, id := range t.MergedFrom {
		if !isUUID(id) {
			return fmt.Errorf("%w: merged_from %q is not a UUID", ErrInvalid, id)
		}
	}
	if len(t.Embedding) > 0 {
		if err := checkVector(t.Embedding, dim); err != nil {
			return fmt.Errorf("embedding: %w", err)
		}
	}
	return nil
}

// isUUID accepts the canonical 8-4-4-4-12 hex form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

func checkIDs(tenantID, meetingID string) error {
	if !isUUID(tenantID) {
		return fmt.Errorf("%w: tenant id %q is not a UUID", ErrInvalid, tenantID)
	}
	if !isUUID(meetingID) {
		return fmt.Errorf("%w: meeting id %q is not a UUID", ErrInvalid, meetingID)
	}
	return nil
}

// embeddingParam is what a topic's embedding is stored as: NULL when the
// topic is not embedded.
func embeddingParam(v []float32) []float32 {
	if len(v) == 0 {
		return nil
	}
	return v
}

// nonNil keeps NOT NULL array columns from receiving NULL.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// upsertTopicSQL writes one topic. embedding_vec is derived from the same
// real[] parameter by pgvector's cast, so the two columns cannot disagree.
// A row whose content is unchanged is left alone: updated_at keeps its
// meaning and the HNSW index is not touched.
func upsertTopicSQL(pgvector bool) string {
	cols, vals, set, stale := "", "", "", ""
	if pgvector {
		cols, vals, set = ", embedding_vec", ", $12::real[]::vector", ", embedding_vec = EXCLUDED.embedding_vec"
		// A row embedded by a writer that did not know about the column.
		stale = ` OR (t.embedding_vec IS NULL) <> (EXCLUDED.embedding_vec IS NULL)`
	}
	return `
	INSERT INTO topics AS t (id, tenant_id, meeting_id, seq, title, summary, keywords, start_seq, end_seq,
	                         start_ms, end_ms, embedding, merged_from, version` + cols + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::real[], $13::uuid[], $14` + vals + `)
	ON CONFLICT (id) DO UPDATE SET
		seq = EXCLUDED.seq, title = EXCLUDED.title, summary = EXCLUDED.summary, keywords = EXCLUDED.keywords,
		start_seq = EXCLUDED.start_seq, end_seq = EXCLUDED.end_seq, start_ms = EXCLUDED.start_ms,
		end_ms = EXCLUDED.end_ms, embedding = EXCLUDED.embedding, merged_from = EXCLUDED.merged_from,
		version = EXCLUDED.version` + set + `, updated_at = now()
	WHERE t.meeting_id = EXCLUDED.meeting_id AND t.tenant_id = EXCLUDED.tenant_id
	  AND ((t.seq, t.title, t.summary, t.keywords, t.start_seq, t.end_seq, t.start_ms, t.end_ms,
	        t.embedding, t.merged_from, t.version)
	       IS DISTINCT FROM
	       (EXCLUDED.seq, EXCLUDED.title, EXCLUDED.summary, EXCLUDED.keywords, EXCLUDED.start_seq,
	        EXCLUDED.end_seq, EXCLUDED.start_ms, EXCLUDED.end_ms, EXCLUDED.embedding,
	        EXCLUDED.merged_from, EXCLUDED.version)` + stale + `)`
}

// ReplaceTopics makes the meeting's stored topics equal to topics, in one
// transaction: topics are upserted by id (rows whose content is unchanged
// are not rewritten) and the meeting's other topics are deleted. Seqs must
// be unique within the list; rows that change seq are first parked on
// negative seqs, so no intermediate state breaks UNIQUE(meeting_id, seq).
// A Version of 0 is stored as 1. Writers of one meeting are serialised.
//
// Another tenant's meeting is ErrNotFound; an id that belongs to another
// meeting is ErrConflict; a list that breaks a rule is ErrInvalid and
// changes nothing.
func (s *Store) ReplaceTopics(ctx context.Context, tenantID, meetingID string, topics []TopicRow) error {
	return s.replaceTopics(ctx, tenantID, meetingID, -1, false, topics)
}

// SaveL1 is ReplaceTopics for the context engine: l1Cursor is the highest
// transcript seq the topics cover, and a save whose cursor is behind what
// is stored (an older context of the same meeting finishing late) is
// refused with ErrConflict, so stored topics never go backwards.
func (s *Store) SaveL1(ctx context.Context, tenantID, meetingID string, l1Cursor int, topics []TopicRow) error {
	if l1Cursor < 0 {
		return fmt.Errorf("%w: l1 cursor %d", ErrInvalid, l1Cursor)
	}
	return s.replaceTopics(ctx, tenantID, meetingID, l1Cursor, false, topics)
}

// SaveL1EndPass is SaveL1 for the end-of-meeting pass: it also records on
// the meeting row that the pass covered turns up to l1Cursor
// (Meeting.EndPass), so no replica runs it again over the same turns.
func (s *Store) SaveL1EndPass(ctx context.Context, tenantID, meetingID string, l1Cursor int, topics []TopicRow) error {
	if l1Cursor < 0 {
		return fmt.Errorf("%w: l1 cursor %d", ErrInvalid, l1Cursor)
	}
	return s.replaceTopics(ctx, tenantID, meetingID, l1Cursor, true, topics)
}

// replaceTopics replaces the topic list; l1Cursor >= 0 also checks that the
// stored topics end no later than it. Every save bumps the meeting's
// topic_version (and endPass sets its l1_end_pass), which tells the other
// replicas to reload the topics.
func (s *Store) replaceTopics(ctx context.Context, tenantID, meetingID string, l1Cursor int, endPass bool, topics []TopicRow) error {
	if err := checkIDs(tenantID, meetingID); err != nil {
		return err
	}
	vc := s.vectors()
	if err := validateTopics(topics, vc.dim); err != nil {
		return err
	}
	ids := make([]string, len(topics))
	seqs := make([]int32, len(topics))
	for i, t := range topics {
		ids[i], seqs[i] = t.ID, int32(t.Seq)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var (
			found, foreign bool
			storedEnd      int
		)
		b := &pgx.Batch{}
		b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended('mithub.topics.' || $1::text, 0))`, meetingID)
		b.Queue(`SELECT EXISTS (SELECT 1 FROM meetings WHERE id = $1 AND tenant_id = $2),
		                EXISTS (SELECT 1 FROM topics WHERE id = ANY($3::uuid[]) AND meeting_id <> $1),
		                coalesce((SELECT max(end_seq) FROM topics WHERE meeting_id = $1 AND tenant_id = $2), -1)`,
			meetingID, tenantID, ids).QueryRow(func(row pgx.Row) error {
			return row.Scan(&found, &foreign, &storedEnd)
		})
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		switch {
		case !found:
			return ErrNotFound
		case foreign:
			return fmt.Errorf("%w: a topic id belongs to another meeting", ErrConflict)
		case l1Cursor >= 0 && storedEnd > l1Cursor:
			return fmt.Errorf("%w: stored topics reach seq %d, this save only %d", ErrConflict, storedEnd, l1Cursor)
		}

		b = &pgx.Batch{}
		b.Queue(`DELETE FROM topics WHERE meeting_id = $1 AND tenant_id = $2 AND NOT (id = ANY($3::uuid[]))`,
			meetingID, tenantID, ids)
		b.Queue(`UPDATE topics t SET seq = -1 - t.seq
			FROM unnest($2::uuid[], $3::int4[]) AS u(id, seq)
			WHERE t.id = u.id AND t.meeting_id = $1 AND t.seq <> u.seq`, meetingID, ids, seqs)
		upsert := upsertTopicSQL(vc.mode == VectorModePgvector)
		for _, t := range topics {
			b.Queue(upsert, t.ID, tenantID, meetingID, t.Seq, t.Title, t.Summary, nonNil(t.Keywords),
				t.StartSeq, t.EndSeq, t.StartMS, t.EndMS, embeddingParam(t.Embedding), nonNil(t.MergedFrom),
				max(t.Version, 1))
		}
		if endPass {
			b.Queue(`UPDATE meetings SET topic_version = topic_version + 1, l1_end_pass = greatest(l1_end_pass, $3)
				WHERE id = $1 AND tenant_id = $2`, meetingID, tenantID, l1Cursor)
		} else {
			b.Queue(`UPDATE meetings SET topic_version = topic_version + 1 WHERE id = $1 AND tenant_id = $2`,
				meetingID, tenantID)
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fmt.Errorf("replace topics of %s: %w", meetingID, translate(err))
	}
	return nil
}

// ListTopics returns the meeting's topics in seq order. Another tenant's
// meeting is ErrNotFound.
func (s *Store) ListTopics(ctx context.Context, tenantID, meetingID string) ([]TopicRow, error) {
	if err := checkIDs(tenantID, meetingID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+topicColumns+` FROM topics
		WHERE meeting_id = $1 AND tenant_id = $2 ORDER BY seq`, meetingID, tenantID)
	if err != nil {
		return nil, fmt.Errorf("list topics of %s: %w", meetingID, translate(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[TopicRow])
	if err != nil {
		return nil, fmt.Errorf("list topics of %s: %w", meetingID, translate(err))
	}
	if len(out) == 0 {
		if err := s.checkMeeting(ctx, tenantID, meetingID); err != nil {
			return nil, fmt.Errorf("list topics of %s: %w", meetingID, err)
		}
	}
	for i := range out {
		normalizeTopic(&out[i])
	}
	return out, nil
}

// checkMeeting is nil when the meeting exists and belongs to the tenant,
// ErrNotFound otherwise.
func (s *Store) checkMeeting(ctx context.Context, tenantID, meetingID string) error {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM meetings WHERE id = $1 AND tenant_id = $2)`,
		meetingID, tenantID).Scan(&ok)
	if err != nil {
		return translate(err)
	}
	if !ok {
		return ErrNotFound
	}
	return nil
}

func normalizeTopic(t *TopicRow) {
	t.Keywords = nonNil(t.Keywords)
	t.MergedFrom = nonNil(t.MergedFrom)
}

// SetTopicEmbeddings stores embeddings by topic id; a nil (or empty)
// vector clears a topic's embedding. All ids must be the tenant's topics:
// otherwise nothing changes and the error is ErrNotFound.
func (s *Store) SetTopicEmbeddings(ctx context.Context, tenantID string, emb map[string][]float32) error {
	if !isUUID(tenantID) {
		return fmt.Errorf("%w: tenant id %q is not a UUID", ErrInvalid, tenantID)
	}
	if len(emb) == 0 {
		return nil
	}
	vc := s.vectors()
	ids := make([]string, 0, len(emb))
	for id, v := range emb {
		if !isUUID(id) {
			return fmt.Errorf("%w: topic id %q is not a UUID", ErrInvalid, id)
		}
		if len(v) > 0 {
			if err := checkVector(v, vc.dim); err != nil {
				return fmt.Errorf("embedding of topic %s: %w", id, err)
			}
		}
		ids = append(ids, id)
	}
	// A fixed lock order keeps concurrent callers from deadlocking.
	slices.Sort(ids)
	set := `embedding = $3::real[]`
	if vc.mode == VectorModePgvector {
		set += `, embedding_vec = $3::real[]::vector`
	}
	var missing []string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, id := range ids {
			b.Queue(`UPDATE topics SET `+set+`, updated_at = now() WHERE id = $1 AND tenant_id = $2`,
				id, tenantID, embeddingParam(emb[id])).Exec(func(ct pgconn.CommandTag) error {
				if ct.RowsAffected() == 0 {
					missing = append(missing, id)
				}
				return nil
			})
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		if len(missing) > 0 {
			return fmt.Errorf("%w: topics %s", ErrNotFound, strings.Join(missing, ", "))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set topic embeddings: %w", translate(err))
	}
	return nil
}

// SearchTopics returns up to k of the tenant's topics most similar to
// query by cosine similarity, best first, keeping those scoring at least
// minScore; topics without an embedding are skipped. meetingID limits the
// search to one meeting ("" searches all the tenant's meetings); another
// tenant's meeting is ErrNotFound.
//
// In pgvector mode the database orders by embedding_vec <=> query (through
// the HNSW index when the planner picks it, so approximate); otherwise the
// embeddings are streamed and scored exactly in Go. A query whose
// dimension differs from the configured one, or from a stored embedding,
// is ErrInvalid, and so are k outside 1..MaxSearchK, an empty, zero or
// non-finite query, and a NaN minScore.
func (s *Store) SearchTopics(ctx context.Context, tenantID, meetingID string, query []float32, k int, minScore float64) ([]ScoredTopic, error) {
	if !isUUID(tenantID) {
		return nil, fmt.Errorf("%w: tenant id %q is not a UUID", ErrInvalid, tenantID)
	}
	if meetingID != "" && !isUUID(meetingID) {
		return nil, fmt.Errorf("%w: meeting id %q is not a UUID", ErrInvalid, meetingID)
	}
	if k <= 0 || k > MaxSearchK {
		return nil, fmt.Errorf("%w: k must be between 1 and %d, got %d", ErrInvalid, MaxSearchK, k)
	}
	if math.IsNaN(minScore) {
		return nil, fmt.Errorf("%w: min score is NaN", ErrInvalid)
	}
	if len(query) == 0 {
		return nil, fmt.Errorf("%w: query vector is empty", ErrInvalid)
	}
	vc := s.vectors()
	if err := checkVector(query, vc.dim); err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	var (
		hits []ScoredTopic
		err  error
	)
	if vc.mode == VectorModePgvector {
		hits, err = s.searchPgvector(ctx, vc, tenantID, meetingID, query, k)
	} else {
		hits, err = s.searchExact(ctx, tenantID, meetingID, query, k, minScore)
	}
	if err != nil {
		return nil, fmt.Errorf("search topics: %w", translate(err))
	}
	hits = slices.DeleteFunc(hits, func(h ScoredTopic) bool { return h.Score < minScore })
	slices.SortStableFunc(hits, func(a, b ScoredTopic) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	for i := range hits {
		normalizeTopic(&hits[i].TopicRow)
	}
	if len(hits) == 0 && meetingID != "" {
		if err := s.checkMeeting(ctx, tenantID, meetingID); err != nil {
			return nil, fmt.Errorf("search topics of %s: %w", meetingID, err)
		}
	}
	return hits, nil
}
