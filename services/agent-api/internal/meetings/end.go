package meetings

import (
	"context"
	"time"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/webhook"
)

// End ends the meeting, segments its last partial chunk and runs the
// end-of-meeting pass, then calls the Ended hook and emits meeting.ended
// (once per meeting: its event id is the meeting's). Ending an ended
// meeting returns it unchanged. The context first catches up with every
// stored turn, whichever replica wrote it; the replica that owns the
// meeting's L1 work (this one or another, told by the meeting's
// notification) segments the tail from the stored rows.
func (s *Service) End(ctx context.Context, tenantID, id string) (store.Meeting, error) {
	return s.endAt(ctx, tenantID, id, time.Time{}, nil)
}

// endAt is End with the time the meeting ended (zero: now, or when is is
// nil).
func (s *Service) endAt(ctx context.Context, tenantID, id string, at time.Time, is ImportStore) (store.Meeting, error) {
	var m store.Meeting
	var err error
	if is != nil && !at.IsZero() {
		m, err = is.EndMeetingAt(ctx, tenantID, id, at)
	} else {
		m, err = s.Store.EndMeeting(ctx, tenantID, id)
	}
	if err != nil {
		return store.Meeting{}, notFound(err)
	}
	if ctxm, err := s.Contexts.GetAt(ctx, tenantID, id, m); err == nil {
		ctxm.Finish()
	} else {
		s.Log.WarnContext(ctx, "flush context of ended meeting", "meeting_id", id, "err", err)
	}
	if s.Ended != nil {
		s.Ended(ctx, tenantID, m)
	}
	if s.Events != nil {
		s.Events.EmitLogged(ctx, tenantID, webhook.MeetingEnded, webhook.EventID(webhook.MeetingEnded, m.ID), webhook.MeetingData{
			MeetingID: m.ID, Title: m.Title, Project: m.Project(), StartedAt: m.StartedAt, EndedAt: m.EndedAt, Utterances: m.Utterances,
		})
	}
	return m, nil
}
