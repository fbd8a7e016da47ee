package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/services/agent-api/internal/meetings"
)

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

// postUtterances ingests a batch of final utterances (see
// meetings.Service.Ingest).
func (s *Server) postUtterances(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	var req postUtterancesRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	var batch []meetings.Utterance
	if req.Utterances != nil {
		batch = make([]meetings.Utterance, len(req.Utterances))
	}
	for i, u := range req.Utterances {
		batch[i] = meetings.Utterance{
			SegmentID: u.SegmentID, SpeakerID: u.SpeakerID, SpeakerName: u.SpeakerName, Text: u.Text,
			StartMS: u.StartMS, EndMS: u.EndMS, Confidence: u.Confidence, Source: u.Source,
		}
	}
	res, err := s.Meetings.Ingest(c.UserContext(), tenantOf(c).ID, id, batch)
	if err != nil {
		return err
	}
	s.Metrics.ingested.Add(float64(res.Inserted))
	s.Metrics.duplicates.Add(float64(res.Duplicates))
	return c.JSON(ingestJSON{Inserted: res.Inserted, Duplicates: res.Duplicates, Cursor: res.Cursor})
}
