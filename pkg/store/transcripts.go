package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// Limits on one utterance; the HTTP edge reports them to clients.
const (
	MaxSegmentIDLen = 256
	MaxSpeakerLen   = 256
	MaxTextLen      = 32 << 10
	MaxSourceLen    = 64
)

// Utterance is one final transcript segment to store.
type Utterance struct {
	SegmentID   string
	SpeakerID   string
	SpeakerName string
	Text        string
	StartMS     int64
	EndMS       int64
	Confidence  float32
	// Tokens is the utterance's token count, computed once at ingest.
	Tokens int
	Source string
}

// Validate reports the first rule the utterance breaks.
func (u Utterance) Validate() error {
	switch {
	case strings.TrimSpace(u.SegmentID) == "":
		return fmt.Errorf("%w: segment_id is required", ErrInvalid)
	case len(u.SegmentID) > MaxSegmentIDLen:
		return fmt.Errorf("%w: segment_id is longer than %d bytes", ErrInvalid, MaxSegmentIDLen)
	case len(u.SpeakerID) > MaxSpeakerLen || len(u.SpeakerName) > MaxSpeakerLen:
		return fmt.Errorf("%w: speaker_id and speaker_name must be at most %d bytes", ErrInvalid, MaxSpeakerLen)
	case strings.TrimSpace(u.SpeakerID) == "" && strings.TrimSpace(u.SpeakerName) == "":
		return fmt.Errorf("%w: speaker_id or speaker_name is required", ErrInvalid)
	case strings.TrimSpace(u.Text) == "":
		return fmt.Errorf("%w: text is required", ErrInvalid)
	case len(u.Text) > MaxTextLen:
		return fmt.Errorf("%w: text is longer than %d bytes", ErrInvalid, MaxTextLen)
	case len(u.Source) > MaxSourceLen:
		return fmt.Errorf("%w: source is longer than %d bytes", ErrInvalid, MaxSourceLen)
	case u.StartMS < 0 || u.EndMS < 0:
		return fmt.Errorf("%w: start_ms and end_ms must not be negative", ErrInvalid)
	case u.EndMS < u.StartMS:
		return fmt.Errorf("%w: end_ms is before start_ms", ErrInvalid)
	case !(u.Confidence >= 0 && u.Confidence <= 1):
		return fmt.Errorf("%w: confidence must be between 0 and 1", ErrInvalid)
	}
	for _, f := range [...]string{u.SegmentID, u.SpeakerID, u.SpeakerName, u.Text, u.Source} {
		if !utf8.ValidString(f) {
			return fmt.Errorf("%w: text fields must be valid UTF-8", ErrInvalid)
		}
		if strings.IndexByte(f, 0) >= 0 {
			return fmt.Errorf("%w: text fields must not contain NUL", ErrInvalid)
		}
	}
	return nil
}

// Transcript is a stored utterance.
type Transcript struct {
	ID          int64     `db:"id"`
	MeetingID   string    `db:"meeting_id"`
	Seq         int       `db:"seq"`
	SegmentID   string    `db:"segment_id"`
	SpeakerID   string    `db:"speaker_id"`
	SpeakerName string    `db:"speaker_name"`
	Text        string    `db:"text"`
	StartMS     int64     `db:"start_ms"`
	EndMS       int64     `db:"end_ms"`
	Confidence  float32   `db:"confidence"`
	Tokens      int       `db:"tokens"`
	Source      string    `db:"source"`
	CreatedAt   time.Time `db:"created_at"`
}

// IngestResult says what an ingest stored.
type IngestResult struct {
	// Inserted are the new rows in seq order.
	Inserted []Transcript
	// Duplicates counts segments already stored (or repeated in the batch).
	Duplicates int
	// NextSeq is the meeting's transcript count after the ingest.
	NextSeq int
}

const transcriptColumns = `id, meeting_id, seq, segment_id, speaker_id, speaker_name, text, start_ms, end_ms, confidence, tokens, source, created_at`

// ingestSQL inserts the batch's new segments with consecutive seqs starting
// at the meeting's next_seq, and advances the counters, in one statement.
// It runs after the meeting row is locked, so its snapshot sees every
// earlier writer's rows: NOT EXISTS is exact and seq has no gaps. It checks
// the tenant itself: when the lock statement found no row, this statement
// still runs in the same batch and must write nothing.
const ingestSQL = `
WITH ins AS (
	INSERT INTO transcripts (tenant_id, meeting_id, seq, segment_id, speaker_id, speaker_name,
	                         text, start_ms, end_ms, confidence, tokens, source)
	SELECT $1, $2, m.next_seq + (row_number() OVER (ORDER BY u.ord))::int - 1,
	       u.segment_id, u.speaker_id, u.speaker_name, u.text, u.start_ms, u.end_ms,
	       u.confidence, u.tokens, u.source
	FROM meetings m,
	     unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::int8[], $8::int8[],
	            $9::float4[], $10::int4[], $11::text[])
	     WITH ORDINALITY AS u(segment_id, speaker_id, speaker_name, text, start_ms, end_ms,
	                          confidence, tokens, source, ord)
	WHERE m.id = $2 AND m.tenant_id = $1
	  AND NOT EXISTS (SELECT 1 FROM transcripts t WHERE t.meeting_id = $2 AND t.segment_id = u.segment_id)
	ORDER BY u.ord
	RETURNING id, seq, segment_id, tokens, created_at
), upd AS (
	UPDATE meetings
	SET next_seq = next_seq + (SELECT count(*) FROM ins),
	    tokens = tokens + (SELECT coalesce(sum(tokens), 0) FROM ins)
	WHERE id = $2 AND tenant_id = $1
	RETURNING next_seq
)
SELECT ins.id, ins.seq, ins.segment_id, ins.created_at, upd.next_seq FROM ins, upd ORDER BY ins.seq`

// Ingest stores the final utterances of one meeting. Segments already
// stored are skipped (idempotent on segment_id); new ones get consecutive
// seqs in batch order. Every utterance is validated first: one invalid
// utterance rejects the batch and changes nothing.
func (s *Store) Ingest(ctx context.Context, tenantID, meetingID string, us []Utterance) (IngestResult, error) {
	for i, u := range us {
		if err := u.Validate(); err != nil {
			return IngestResult{}, fmt.Errorf("utterance %d: %w", i, err)
		}
	}
	var (
		seen    = make(map[string]int, len(us)) // segment id → index in us
		res     IngestResult
		segIDs  = make([]string, 0, len(us))
		spkIDs  = make([]string, 0, len(us))
		spkNms  = make([]string, 0, len(us))
		texts   = make([]string, 0, len(us))
		starts  = make([]int64, 0, len(us))
		ends    = make([]int64, 0, len(us))
		confs   = make([]float32, 0, len(us))
		tokens  = make([]int32, 0, len(us))
		sources = make([]string, 0, len(us))
	)
	for i, u := range us {
		if _, dup := seen[u.SegmentID]; dup {
			res.Duplicates++
			continue
		}
		seen[u.SegmentID] = i
		segIDs = append(segIDs, u.SegmentID)
		spkIDs = append(spkIDs, u.SpeakerID)
		spkNms = append(spkNms, u.SpeakerName)
		texts = append(texts, u.Text)
		starts = append(starts, u.StartMS)
		ends = append(ends, u.EndMS)
		confs = append(confs, u.Confidence)
		tokens = append(tokens, int32(u.Tokens))
		sources = append(sources, u.Source)
	}

	// One round trip: a batch runs as one implicit transaction, so the row
	// lock taken by the first statement is held through the insert.
	b := &pgx.Batch{}
	b.Queue(`SELECT next_seq FROM meetings WHERE id = $1 AND tenant_id = $2 FOR UPDATE`, meetingID, tenantID).
		QueryRow(func(row pgx.Row) error {
			return row.Scan(&res.NextSeq)
		})
	b.Queue(ingestSQL, tenantID, meetingID, segIDs, spkIDs, spkNms, texts, starts, ends, confs, tokens, sources).
		Query(func(rows pgx.Rows) error {
			// The statement returns only what the database assigned; the
			// rest comes from the input, which is what was stored.
			for rows.Next() {
				var t Transcript
				if err := rows.Scan(&t.ID, &t.Seq, &t.SegmentID, &t.CreatedAt, &res.NextSeq); err != nil {
					return err
				}
				u := us[seen[t.SegmentID]]
				t.MeetingID, t.SpeakerID, t.SpeakerName, t.Text = meetingID, u.SpeakerID, u.SpeakerName, u.Text
				t.StartMS, t.EndMS, t.Confidence, t.Tokens, t.Source = u.StartMS, u.EndMS, u.Confidence, u.Tokens, u.Source
				res.Inserted = append(res.Inserted, t)
			}
			return rows.Err()
		})
	err := s.pool.SendBatch(ctx, b).Close()
	if err != nil {
		return IngestResult{}, fmt.Errorf("ingest into meeting %s: %w", meetingID, translate(err))
	}
	res.Duplicates += len(segIDs) - len(res.Inserted)
	if len(res.Inserted) > 0 {
		s.ingested.add(meetingID)
	}
	return res, nil
}

// ListTranscripts returns up to limit transcripts with seq > afterSeq in seq
// order. afterSeq -1 starts at the beginning.
func (s *Store) ListTranscripts(ctx context.Context, tenantID, meetingID string, afterSeq, limit int) ([]Transcript, error) {
	if limit <= 0 {
		limit = 10000
	}
	rows, err := s.pool.Query(ctx, `SELECT `+transcriptColumns+` FROM transcripts
		WHERE meeting_id = $1 AND tenant_id = $2 AND seq > $3
		ORDER BY seq LIMIT $4`, meetingID, tenantID, afterSeq, limit)
	if err != nil {
		return nil, fmt.Errorf("list transcripts of %s: %w", meetingID, translate(err))
	}
	ts, err := pgx.CollectRows(rows, pgx.RowToStructByName[Transcript])
	if err != nil {
		return nil, fmt.Errorf("list transcripts of %s: %w", meetingID, translate(err))
	}
	return ts, nil
}

// MeetingTail reads the meeting and its last n transcripts from one
// snapshot, so the counters and the tail agree; context rebuilds use it.
func (s *Store) MeetingTail(ctx context.Context, tenantID, meetingID string, n int) (Meeting, []Transcript, error) {
	var (
		m    Meeting
		tail []Transcript
	)
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+meetingColumns+` FROM meetings WHERE id = $1 AND tenant_id = $2`, meetingID, tenantID)
		if err != nil {
			return err
		}
		if m, err = pgx.CollectExactlyOneRow(rows, rowToMeeting); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT * FROM (
			SELECT `+transcriptColumns+` FROM transcripts
			WHERE meeting_id = $1 AND tenant_id = $2
			ORDER BY seq DESC LIMIT $3) t ORDER BY seq`, meetingID, tenantID, n)
		if err != nil {
			return err
		}
		tail, err = pgx.CollectRows(rows, pgx.RowToStructByName[Transcript])
		return err
	})
	if err != nil {
		return Meeting{}, nil, fmt.Errorf("load meeting %s: %w", meetingID, translate(err))
	}
	return m, tail, nil
}

// TranscriptRange returns the transcripts with fromSeq <= seq <= toSeq in
// seq order, at most limit (default 10,000).
func (s *Store) TranscriptRange(ctx context.Context, tenantID, meetingID string, fromSeq, toSeq, limit int) ([]Transcript, error) {
	if limit <= 0 {
		limit = 10000
	}
	rows, err := s.pool.Query(ctx, `SELECT `+transcriptColumns+` FROM transcripts
		WHERE meeting_id = $1 AND tenant_id = $2 AND seq BETWEEN $3 AND $4
		ORDER BY seq LIMIT $5`, meetingID, tenantID, fromSeq, toSeq, limit)
	if err != nil {
		return nil, fmt.Errorf("read transcripts %d..%d of %s: %w", fromSeq, toSeq, meetingID, translate(err))
	}
	ts, err := pgx.CollectRows(rows, pgx.RowToStructByName[Transcript])
	if err != nil {
		return nil, fmt.Errorf("read transcripts %d..%d of %s: %w", fromSeq, toSeq, meetingID, translate(err))
	}
	return ts, nil
}

// TranscriptsSince returns the last limit transcripts (default 10,000)
// that start at or after sinceMS, in seq order.
func (s *Store) TranscriptsSince(ctx context.Context, tenantID, meetingID string, sinceMS int64, limit int) ([]Transcript, error) {
	if limit <= 0 {
		limit = 10000
	}
	rows, err := s.pool.Query(ctx, `SELECT * FROM (
		SELECT `+transcriptColumns+` FROM transcripts
		WHERE meeting_id = $1 AND tenant_id = $2 AND start_ms >= $3
		ORDER BY seq DESC LIMIT $4) t ORDER BY seq`, meetingID, tenantID, sinceMS, limit)
	if err != nil {
		return nil, fmt.Errorf("read transcripts of %s since %d ms: %w", meetingID, sinceMS, translate(err))
	}
	ts, err := pgx.CollectRows(rows, pgx.RowToStructByName[Transcript])
	if err != nil {
		return nil, fmt.Errorf("read transcripts of %s since %d ms: %w", meetingID, sinceMS, translate(err))
	}
	return ts, nil
}
