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

type l1JSON struct {
	// Cursor is the highest seq covered by a topic, -1 before the first.
	Cursor int                `json:"cursor"`
	Topics []meetingctx.Topic `json:"topics"`
	// Busy: a chunk is being segmented or is due.
	Busy bool `json:"busy"`
	// Waited reports, when the caller asked to wait, whether L1 caught up
	// within the bound.
	Waited *bool `json:"waited,omitempty"`
}

type pendingJSON struct {
	Turns  []meetingctx.Turn `json:"turns"`
	Tokens int               `json:"tokens"`
}

type contextJSON struct {
	MeetingID string               `json:"meeting_id"`
	Cursor    int                  `json:"cursor"`
	L0        l0JSON               `json:"l0"`
	L1        l1JSON               `json:"l1"`
	Pending   pendingJSON          `json:"pending"`
	Speakers  []meetingctx.Speaker `json:"speakers"`
	Counters  countersJSON         `json:"counters"`
}

// boolQuery parses an optional boolean query parameter strictly.
func boolQuery(c *fiber.Ctx, name string) (bool, error) {
	v := c.Query(name)
	switch v {
	case "":
		return false, nil
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, errInvalid("query parameter %s must be true or false", name)
}

// getContext returns the meeting's live context. With ?wait=true it first
// waits for pending L1 work, at most the configured bound; turns not yet
// in a topic are always returned raw under pending, so none is missing.
func (s *Server) getContext(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	wait, err := boolQuery(c, "wait")
	if err != nil {
		return err
	}
	m, err := s.Contexts.GetFresh(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return meetingErr(err)
	}
	var waited *bool
	if wait {
		ok := m.WaitL1(c.UserContext(), s.L1Wait)
		waited = &ok
	}
	snap := m.Snapshot()
	return c.JSON(contextJSON{
		MeetingID: snap.MeetingID,
		Cursor:    snap.Cursor,
		L0:        l0JSON{Turns: nonNil(snap.L0), Tokens: snap.L0Tokens},
		L1:        l1JSON{Cursor: snap.L1Cursor, Topics: nonNil(snap.Topics), Busy: snap.L1Busy, Waited: waited},
		Pending:   pendingJSON{Turns: nonNil(snap.Pending), Tokens: snap.PendTokens},
		Speakers:  nonNil(snap.Speakers),
		Counters:  countersJSON{Utterances: snap.Turns, Tokens: snap.TotalTokens, LastSeq: snap.Cursor},
	})
}

// nonNil makes empty lists encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
