package httpapi

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/meetingctx"
)

const (
	maxQueryLen = 1000
	maxK        = 50
)

// searchParams reads q and k. k defaults to 5 and must be 1..50.
func searchParams(c *fiber.Ctx) (q string, k int, err error) {
	return parseSearch(c.Query("q"), c.Query("k"))
}

// parseSearch checks the raw q and k of a topic search.
func parseSearch(rawQ, rawK string) (q string, k int, err error) {
	q = strings.TrimSpace(rawQ)
	if !utf8.ValidString(q) {
		return "", 0, errInvalid("query parameter q is not valid UTF-8")
	}
	if len(q) > maxQueryLen {
		return "", 0, errInvalid("query parameter q is longer than %d bytes", maxQueryLen)
	}
	k = meetingctx.DefaultSearchTopK
	if rawK != "" {
		k, err = strconv.Atoi(rawK)
		if err != nil || k < 1 || k > maxK {
			return "", 0, errInvalid("query parameter k must be an integer from 1 to %d", maxK)
		}
	}
	return q, k, nil
}

type topicsJSON struct {
	MeetingID string             `json:"meeting_id"`
	L1Cursor  int                `json:"l1_cursor"`
	Pending   int                `json:"pending_turns"`
	Topics    []meetingctx.Topic `json:"topics"`
}

type topicSearchJSON struct {
	MeetingID string                   `json:"meeting_id"`
	Query     string                   `json:"query"`
	Results   []meetingctx.ScoredTopic `json:"results"`
}

// getTopics lists the meeting's topics in order, or with ?q= ranks them
// by hybrid search.
func (s *Server) getTopics(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	q, k, err := searchParams(c)
	if err != nil {
		return err
	}
	if q == "" {
		tl, err := s.Meetings.Topics(c.UserContext(), tenantOf(c).ID, id)
		if err != nil {
			return err
		}
		return c.JSON(topicsJSON{MeetingID: id, L1Cursor: tl.L1Cursor, Pending: tl.PendingTurns, Topics: nonNil(tl.Topics)})
	}
	hits, err := s.Search.MeetingTopics(c.UserContext(), tenantOf(c).ID, id, q, k)
	if err != nil {
		return err
	}
	return c.JSON(topicSearchJSON{MeetingID: id, Query: q, Results: nonNil(hits)})
}
