package meetings

import (
	"context"

	"github.com/mithub/mithub/pkg/store"
)

// End ends the meeting, segments its last partial chunk and runs the
// end-of-meeting pass, then calls the Ended hook. Ending an ended meeting
// returns it unchanged. The context first catches up with every stored
// turn, whichever replica wrote it; the replica that owns the meeting's
// L1 work (this one or another, told by the meeting's notification)
// segments the tail from the stored rows.
func (s *Service) End(ctx context.Context, tenantID, id string) (store.Meeting, error) {
	m, err := s.Store.EndMeeting(ctx, tenantID, id)
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
	return m, nil
}
