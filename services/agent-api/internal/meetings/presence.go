package meetings

import (
	"context"
	"time"

	"github.com/mithub/mithub/pkg/store"
)

// Presence is a participant joining or leaving a meeting. A nil AtMS is
// now, as an offset from the meeting's start.
type Presence struct {
	ParticipantID string
	Event         string
	AtMS          *int64
}

// RecordPresence records that a participant joined or left the meeting
// and returns the stored event and whether it was new; a catch-up without
// since_ms starts where the asker last left. Invalid events are
// store.ErrInvalid errors.
func (s *Service) RecordPresence(ctx context.Context, tenantID, meetingID string, p Presence) (store.PresenceEvent, bool, error) {
	e := store.PresenceEvent{ParticipantID: p.ParticipantID, Kind: p.Event}
	if p.AtMS != nil {
		e.AtMS = *p.AtMS
	}
	if err := e.Validate(); err != nil {
		return store.PresenceEvent{}, false, err
	}
	if p.AtMS == nil {
		m, err := s.Store.GetMeeting(ctx, tenantID, meetingID)
		if err != nil {
			return store.PresenceEvent{}, false, notFound(err)
		}
		e.AtMS = max(time.Since(m.StartedAt).Milliseconds(), 0)
	}
	created, err := s.Store.RecordPresence(ctx, tenantID, meetingID, e)
	if err != nil {
		return store.PresenceEvent{}, false, notFound(err)
	}
	return e, created, nil
}
