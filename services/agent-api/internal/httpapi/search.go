package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/meetingctx"
)

type searchHitJSON struct {
	MeetingID string `json:"meeting_id"`
	meetingctx.Topic
	Score  float64 `json:"score"`
	Cosine float64 `json:"cosine"`
	Rank   float64 `json:"text_rank"`
}

type searchJSON struct {
	Query   string          `json:"query"`
	Results []searchHitJSON `json:"results"`
}

// search ranks topics of all the tenant's meetings (see
// search.Service.Topics).
func (s *Server) search(c *fiber.Ctx) error {
	q, k, err := searchParams(c)
	if err != nil {
		return err
	}
	if q == "" {
		return errInvalid("query parameter q is required")
	}
	hits, err := s.Search.Topics(c.UserContext(), tenantOf(c).ID, q, k)
	if err != nil {
		return err
	}
	out := make([]searchHitJSON, len(hits))
	for i, h := range hits {
		out[i] = searchHitJSON{MeetingID: h.MeetingID, Topic: h.Topic, Score: h.Score, Cosine: h.Cosine, Rank: h.Rank}
	}
	return c.JSON(searchJSON{Query: q, Results: out})
}
