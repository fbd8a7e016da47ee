package httpapi

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/services/agent-api/internal/ask"
)

// defaultTurnK is k of turn search when the request gives none.
const defaultTurnK = 10

type turnHitJSON struct {
	Seq         int     `json:"seq"`
	SpeakerName string  `json:"speaker_name"`
	StartMS     int64   `json:"start_ms"`
	Text        string  `json:"text"`
	Score       float64 `json:"score"`
	TopicID     string  `json:"topic_id"`
}

type turnSearchJSON struct {
	MeetingID string        `json:"meeting_id"`
	Query     string        `json:"query"`
	Hits      []turnHitJSON `json:"hits"`
}

// searchTurns answers GET /v1/meetings/:id/search?q=...&k=10: the turns
// that best answer q, best first (turn search, the same the ask path uses
// for its evidence).
func (s *Server) searchTurns(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	q := strings.TrimSpace(c.Query("q"))
	switch {
	case q == "":
		return errInvalid("query parameter q is required")
	case !utf8.ValidString(q):
		return errInvalid("query parameter q is not valid UTF-8")
	case len(q) > maxQueryLen:
		return errInvalid("query parameter q is longer than %d bytes", maxQueryLen)
	}
	k := defaultTurnK
	if raw := c.Query("k"); raw != "" {
		k, err = strconv.Atoi(raw)
		if err != nil || k < 1 || k > ask.MaxSearchTurnsK {
			return errInvalid("query parameter k must be an integer from 1 to %d", ask.MaxSearchTurnsK)
		}
	}
	hits, err := s.Search.SearchTurns(c.UserContext(), tenantOf(c).ID, id, q, k)
	if err != nil {
		return err
	}
	out := turnSearchJSON{MeetingID: id, Query: q, Hits: make([]turnHitJSON, len(hits))}
	for i, h := range hits {
		out.Hits[i] = turnHitJSON{Seq: h.Seq, SpeakerName: h.SpeakerName, StartMS: h.StartMS, Text: h.Text, Score: h.Score, TopicID: h.TopicID}
	}
	return c.JSON(out)
}
