package httpapi

import (
	"context"
	"math"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/transcriptfile"
	"github.com/mithub/mithub/services/agent-api/internal/meetingcache"
)

// transcriptLister pages a meeting's stored transcripts; the store
// implements it.
type transcriptLister interface {
	ListTranscripts(ctx context.Context, tenantID, meetingID string, afterSeq, limit int) ([]store.Transcript, error)
}

// Page sizes of GET /v1/meetings/{id}/transcript.
const (
	defaultTranscriptPage = 200
	maxTranscriptPage     = 1000
)

// transcriptRowJSON is one stored final utterance: the turn as the
// context has it, with where it came from and when it was stored.
type transcriptRowJSON struct {
	meetingctx.Turn
	Source    string    `json:"source"`
	CreatedAt time.Time `json:"created_at"`
}

func toTranscriptRows(ts []store.Transcript) []transcriptRowJSON {
	turns := meetingcache.Turns(ts)
	out := make([]transcriptRowJSON, len(ts))
	for i, t := range ts {
		out[i] = transcriptRowJSON{Turn: turns[i], Source: t.Source, CreatedAt: t.CreatedAt}
	}
	return out
}

type transcriptPageJSON struct {
	MeetingID string              `json:"meeting_id"`
	Rows      []transcriptRowJSON `json:"rows"`
	// NextAfterSeq is the after_seq of the next page: the last row's seq,
	// or the request's after_seq when the page is empty.
	NextAfterSeq int `json:"next_after_seq"`
	// More: rows past this page exist.
	More bool `json:"more"`
}

// afterSeqQuery reads after_seq: -1 (the default) starts at the first
// turn. Seqs are 32-bit in the store, so larger values are rejected here.
func afterSeqQuery(c *fiber.Ctx) (int, error) {
	raw := c.Query("after_seq")
	if raw == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < -1 || n > math.MaxInt32 {
		return 0, errInvalid("query parameter after_seq must be an integer from -1 to %d", math.MaxInt32)
	}
	return n, nil
}

func transcriptLimitQuery(c *fiber.Ctx) (int, error) {
	raw := c.Query("limit")
	if raw == "" {
		return defaultTranscriptPage, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > maxTranscriptPage {
		return 0, errInvalid("query parameter limit must be an integer from 1 to %d", maxTranscriptPage)
	}
	return n, nil
}

// lister returns the store's transcript pager, or 501 when the store has
// none.
func (s *Server) lister() (transcriptLister, error) {
	l, ok := s.Store.(transcriptLister)
	if !ok {
		return nil, &apiError{Status: fiber.StatusNotImplemented, Code: codeUnavailable,
			Message: "listing transcripts is not supported by this store"}
	}
	return l, nil
}

// getTranscript answers GET /v1/meetings/{id}/transcript?after_seq=&limit=
// with the stored turns after after_seq, in seq order, one page at a time.
// With ?format=vtt|srt|md|json|jsonl it exports the whole transcript in
// that format instead (exportTranscript).
func (s *Server) getTranscript(c *fiber.Ctx) error {
	if raw := c.Query("format"); raw != "" {
		f, err := transcriptfile.ParseFormat(raw)
		if err != nil || f == transcriptfile.QMSum {
			return errInvalid("query parameter format must be vtt, srt, md, json or jsonl, got %q", truncate(raw, 32))
		}
		return s.exportTranscript(c, f)
	}
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	after, err := afterSeqQuery(c)
	if err != nil {
		return err
	}
	limit, err := transcriptLimitQuery(c)
	if err != nil {
		return err
	}
	l, err := s.lister()
	if err != nil {
		return err
	}
	ctx, tenant := c.UserContext(), tenantOf(c).ID
	// The transcript query is tenant-scoped but cannot tell an unknown
	// meeting from an empty one.
	if _, err := s.Store.GetMeeting(ctx, tenant, id); err != nil {
		return meetingErr(err)
	}
	rows, err := l.ListTranscripts(ctx, tenant, id, after, limit+1)
	if err != nil {
		return meetingErr(err)
	}
	page := transcriptPageJSON{MeetingID: id, NextAfterSeq: after, More: len(rows) > limit}
	rows = rows[:min(len(rows), limit)]
	if len(rows) > 0 {
		page.NextAfterSeq = rows[len(rows)-1].Seq
	}
	page.Rows = toTranscriptRows(rows)
	return c.JSON(page)
}
