package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/meetingctx"
)

type syncJSON struct {
	Applied int `json:"applied"`
	Cursor  int `json:"cursor"`
}

// syncMeeting is the realtime worker's ping: load what Postgres has past
// the context's cursor.
func (s *Server) syncMeeting(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	if err := decodeJSON(c, &struct{}{}, true); err != nil {
		return err
	}
	applied, cursor, err := s.Contexts.Sync(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return meetingErr(err)
	}
	return c.JSON(syncJSON{Applied: applied, Cursor: cursor})
}

type l0JSON struct {
	Turns  []meetingctx.Turn `json:"turns"`
	Tokens int               `json:"tokens"`
}

type contextJSON struct {
	MeetingID string       `json:"meeting_id"`
	Cursor    int          `json:"cursor"`
	L0        l0JSON       `json:"l0"`
	Counters  countersJSON `json:"counters"`
}

func (s *Server) getContext(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	m, err := s.Contexts.Get(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return meetingErr(err)
	}
	snap := m.Snapshot()
	if snap.L0 == nil {
		snap.L0 = []meetingctx.Turn{}
	}
	return c.JSON(contextJSON{
		MeetingID: snap.MeetingID,
		Cursor:    snap.Cursor,
		L0:        l0JSON{Turns: snap.L0, Tokens: snap.L0Tokens},
		Counters:  countersJSON{Utterances: snap.Turns, Tokens: snap.TotalTokens, LastSeq: snap.Cursor},
	})
}
