package httpapi

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/store"
)

// PresenceStore records participants joining and leaving meetings.
type PresenceStore interface {
	RecordPresence(ctx context.Context, tenantID, meetingID string, e store.PresenceEvent) (bool, error)
}

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
	ctx, tenant := c.UserContext(), tenantOf(c).ID
	e := store.PresenceEvent{ParticipantID: req.ParticipantID, Kind: req.Event}
	if req.AtMS != nil {
		e.AtMS = *req.AtMS
	}
	if err := e.Validate(); err != nil {
		return err
	}
	if req.AtMS == nil {
		m, err := s.Store.GetMeeting(ctx, tenant, id)
		if err != nil {
			return meetingErr(err)
		}
		e.AtMS = max(time.Since(m.StartedAt).Milliseconds(), 0)
	}
	created, err := s.Store.RecordPresence(ctx, tenant, id, e)
	if err != nil {
		return meetingErr(err)
	}
	return c.JSON(presenceResponse{PresenceEvent: e, Created: created})
}
