package httpapi

import (
	"encoding/json"
	"errors"
	"regexp"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/store"
)

type createMeetingRequest struct {
	Title    string         `json:"title"`
	RoomName string         `json:"room_name"`
	Language string         `json:"language"`
	Metadata map[string]any `json:"metadata"`
	// StartedAt, RFC 3339, is when a recorded meeting being replayed
	// started (default: now): due dates and the PR's date count from it.
	StartedAt string `json:"started_at"`
}

// maxStartSkew is how far in the future a meeting's started_at may lie:
// clocks differ a little, meetings do not start later than they are
// created.
const maxStartSkew = 5 * time.Minute

type countersJSON struct {
	Utterances int   `json:"utterances"`
	Tokens     int64 `json:"tokens"`
	LastSeq    int   `json:"last_seq"`
}

type meetingJSON struct {
	ID        string         `json:"id"`
	RoomName  string         `json:"room_name"`
	Title     string         `json:"title"`
	Language  string         `json:"language"`
	Status    string         `json:"status"`
	StartedAt time.Time      `json:"started_at"`
	EndedAt   *time.Time     `json:"ended_at"`
	Metadata  map[string]any `json:"metadata"`
	Counters  countersJSON   `json:"counters"`
}

func toMeetingJSON(m store.Meeting) meetingJSON {
	md := m.Metadata
	if md == nil {
		md = map[string]any{}
	}
	return meetingJSON{
		ID: m.ID, RoomName: m.RoomName, Title: m.Title, Language: m.Language, Status: m.Status,
		StartedAt: m.StartedAt, EndedAt: m.EndedAt, Metadata: md,
		Counters: countersJSON{Utterances: m.Utterances, Tokens: m.Tokens, LastSeq: m.Utterances - 1},
	}
}

const (
	maxTitleLen    = 512
	maxRoomLen     = 256
	maxMetadataLen = 16 << 10
)

// languageRE accepts BCP 47-shaped tags such as ko, en, en-US, zh-Hant-TW.
var languageRE = regexp.MustCompile(`^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$`)

func (r createMeetingRequest) validate() error {
	if _, err := parseStartedAt(r.StartedAt, time.Now()); err != nil {
		return err
	}
	if err := checkText("title", r.Title, maxTitleLen); err != nil {
		return err
	}
	if err := checkText("room_name", r.RoomName, maxRoomLen); err != nil {
		return err
	}
	if r.Language != "" && !languageRE.MatchString(r.Language) {
		return errInvalid("language %q is not a language tag such as ko or en-US", truncate(r.Language, 32))
	}
	if r.Metadata != nil {
		b, err := json.Marshal(r.Metadata)
		if err != nil {
			return errInvalid("metadata: %v", err)
		}
		if len(b) > maxMetadataLen {
			return errInvalid("metadata is larger than %d bytes", maxMetadataLen)
		}
		if err := checkJSONNoNUL("metadata", r.Metadata); err != nil {
			return err
		}
	}
	return nil
}

// parseStartedAt parses a meeting's started_at (zero when not given),
// refusing a time that is not RFC 3339 or lies more than maxStartSkew
// after now.
func parseStartedAt(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, errInvalid("started_at %q is not an RFC 3339 time such as 2026-03-12T09:00:00Z", truncate(s, 40))
	}
	if t.After(now.Add(maxStartSkew)) {
		return time.Time{}, errInvalid("started_at %s is in the future", t.UTC().Format(time.RFC3339))
	}
	return t, nil
}

func (s *Server) createMeeting(c *fiber.Ctx) error {
	var req createMeetingRequest
	if err := decodeJSON(c, &req, true); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	started, err := parseStartedAt(req.StartedAt, time.Now())
	if err != nil {
		return err
	}
	m, err := s.Store.CreateMeeting(c.UserContext(), tenantOf(c).ID, store.NewMeeting{
		Title: req.Title, RoomName: req.RoomName, Language: req.Language, Metadata: req.Metadata, StartedAt: started,
	})
	if err != nil {
		return err
	}
	c.Location("/v1/meetings/" + m.ID)
	return c.Status(fiber.StatusCreated).JSON(toMeetingJSON(m))
}

func (s *Server) getMeeting(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	m, err := s.Meetings.Get(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return err
	}
	return c.JSON(toMeetingJSON(m))
}

// endMeeting ends the meeting (see meetings.Service.End).
func (s *Server) endMeeting(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	if err := decodeJSON(c, &struct{}{}, true); err != nil {
		return err
	}
	m, err := s.Meetings.End(c.UserContext(), tenantOf(c).ID, id)
	if err != nil {
		return err
	}
	return c.JSON(toMeetingJSON(m))
}

// meetingErr names the missing thing: the meeting.
func meetingErr(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return errNotFound("meeting")
	}
	return err
}
