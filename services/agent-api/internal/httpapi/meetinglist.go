package httpapi

import (
	"context"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/store"
)

// meetingLister lists a tenant's meetings; the store implements it.
type meetingLister interface {
	ListMeetings(ctx context.Context, tenantID string, limit int) ([]store.Meeting, error)
}

const maxListLimit = 1000

// listMeetings answers GET /v1/meetings?limit=N with the tenant's newest
// meetings first (default 100, at most 1000).
func (s *Server) listMeetings(c *fiber.Ctx) error {
	limit := 100
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxListLimit {
			return errInvalid("limit must be an integer from 1 to %d", maxListLimit)
		}
		limit = n
	}
	out, err := s.meetingList(c.UserContext(), tenantOf(c).ID, limit)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"meetings": out})
}

// meetingList returns the tenant's newest meetings first.
func (s *Server) meetingList(ctx context.Context, tenantID string, limit int) ([]meetingJSON, error) {
	l, ok := s.Store.(meetingLister)
	if !ok {
		return nil, &apiError{Status: fiber.StatusNotImplemented, Code: codeUnavailable, Message: "listing meetings is not supported by this store"}
	}
	ms, err := l.ListMeetings(ctx, tenantID, limit)
	if err != nil {
		return nil, err
	}
	out := make([]meetingJSON, len(ms))
	for i, m := range ms {
		out[i] = toMeetingJSON(m)
	}
	return out, nil
}
