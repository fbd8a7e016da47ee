package httpapi

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/store"
)

// maxBatch caps utterances per request.
const maxBatch = 1000

type utteranceJSON struct {
	SegmentID   string   `json:"segment_id"`
	SpeakerID   string   `json:"speaker_id"`
	SpeakerName string   `json:"speaker_name"`
	Text        string   `json:"text"`
	StartMS     int64    `json:"start_ms"`
	EndMS       int64    `json:"end_ms"`
	Confidence  *float32 `json:"confidence"`
	Source      string   `json:"source"`
}

type postUtterancesRequest struct {
	Utterances []utteranceJSON `json:"utterances"`
}

type ingestJSON struct {
	Inserted   int `json:"inserted"`
	Duplicates int `json:"duplicates"`
	// Cursor is the highest seq applied to the meeting's context.
	Cursor int `json:"cursor"`
}

// postUtterances stores a batch of final utterances, then applies the new
// rows to the cached context. Postgres first: a crash between the two
// loses nothing, the next sync or rebuild reads the rows back.
func (s *Server) postUtterances(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	var req postUtterancesRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	switch {
	case req.Utterances == nil:
		return errInvalid("utterances is required")
	case len(req.Utterances) == 0:
		return errInvalid("utterances must not be empty")
	case len(req.Utterances) > maxBatch:
		return errInvalid("at most %d utterances per request, got %d", maxBatch, len(req.Utterances))
	}
	us := make([]store.Utterance, len(req.Utterances))
	for i, u := range req.Utterances {
		conf := float32(1)
		if u.Confidence != nil {
			conf = *u.Confidence
		}
		us[i] = store.Utterance{
			SegmentID: u.SegmentID, SpeakerID: u.SpeakerID, SpeakerName: u.SpeakerName, Text: u.Text,
			StartMS: u.StartMS, EndMS: u.EndMS, Confidence: conf, Source: u.Source,
		}
		if us[i].Source == "" {
			us[i].Source = "api"
		}
		if err := us[i].Validate(); err != nil {
			return errInvalid("utterances[%d]: %s", i, unwrapInvalid(err))
		}
		us[i].Tokens = s.Tokens.Count(u.Text)
	}
	tenant := tenantOf(c).ID
	res, err := s.Store.Ingest(c.UserContext(), tenant, id, us)
	if err != nil {
		return meetingErr(err)
	}
	s.Metrics.ingested.Add(float64(len(res.Inserted)))
	s.Metrics.duplicates.Add(float64(res.Duplicates))
	cursor, err := s.Contexts.ApplyInserted(c.UserContext(), tenant, id, res.Inserted)
	if err != nil {
		// Stored is stored: the context catches up on the next sync.
		s.Log.WarnContext(c.UserContext(), "apply to context", "meeting_id", id, "err", err)
		cursor = res.NextSeq - 1
	}
	return c.JSON(ingestJSON{Inserted: len(res.Inserted), Duplicates: res.Duplicates, Cursor: cursor})
}

// unwrapInvalid drops the sentinel's prefix from a validation message.
func unwrapInvalid(err error) string {
	return strings.TrimPrefix(err.Error(), store.ErrInvalid.Error()+": ")
}
