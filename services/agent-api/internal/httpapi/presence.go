package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/agent-api/internal/meetings"
)

type presenceRequest struct {
	ParticipantID string `json:"participant_id"`
	Event         string `json:"event"`
	// AtMS defaults to now, as an offset from the meeting's start.
	AtMS *int64 `json:"at_ms"`
}

type presenceResponse struct {
	store.PresenceEvent
	Created bool `json:"created"`
}

// postPresence records that a participant joined or left the meeting; a
// catch-up without since_ms starts where the asker last left.
func (s *Server) postPresence(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	var req presenceRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	e, created, err := s.Meetings.RecordPresence(c.UserContext(), tenantOf(c).ID, id,
		meetings.Presence{ParticipantID: req.ParticipantID, Event: req.Event, AtMS: req.AtMS})
	if err != nil {
		return err
	}
	return c.JSON(presenceResponse{PresenceEvent: e, Created: created})
}
