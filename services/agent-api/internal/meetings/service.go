package meetings

import (
	"context"
	"errors"
	"log/slog"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tokens"
)

// Store is the meeting persistence the use cases need; *store.Store
// implements it.
type Store interface {
	GetMeeting(ctx context.Context, tenantID, id string) (store.Meeting, error)
	EndMeeting(ctx context.Context, tenantID, id string) (store.Meeting, error)
	Ingest(ctx context.Context, tenantID, meetingID string, us []store.Utterance) (store.IngestResult, error)
	RecordPresence(ctx context.Context, tenantID, meetingID string, e store.PresenceEvent) (bool, error)
}

// Contexts are the live meeting contexts; *meetingcache.Cache implements it.
type Contexts interface {
	// GetFresh returns the context caught up with the meeting row (writes
	// through other replicas included); GetAt does so for a row just read.
	GetFresh(ctx context.Context, tenantID, meetingID string) (*meetingctx.Manager, error)
	GetAt(ctx context.Context, tenantID, meetingID string, row store.Meeting) (*meetingctx.Manager, error)
	ApplyInserted(ctx context.Context, tenantID, meetingID string, rows []store.Transcript) (int, error)
}

// EndHook is told about every meeting that ended (the PR use cases
// enqueue its memory-bank update). It is best effort and returns nothing.
type EndHook func(ctx context.Context, tenantID string, m store.Meeting)

// Service runs the meeting use cases.
type Service struct {
	Store    Store
	Contexts Contexts
	Tokens   tokens.Counter
	Log      *slog.Logger
	// Ended, when set, runs after a meeting ended.
	Ended EndHook
	// Events, when set, gets meeting.ended (webhooks).
	Events Events
}

// Events emits webhook events, best effort; *webhook.Emitter implements
// it.
type Events interface {
	EmitLogged(ctx context.Context, tenantID, event, eventID string, data any)
}

// notFound names the missing thing: the meeting.
func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return ErrNotFound
	}
	return err
}

// Get returns the tenant's meeting.
func (s *Service) Get(ctx context.Context, tenantID, id string) (store.Meeting, error) {
	m, err := s.Store.GetMeeting(ctx, tenantID, id)
	return m, notFound(err)
}

// TopicList is a meeting's topics in order.
type TopicList struct {
	// L1Cursor is the highest seq covered by a topic, -1 before the first.
	L1Cursor     int
	PendingTurns int
	Topics       []meetingctx.Topic
}

// Topics returns the meeting's topics in order, from its live context.
func (s *Service) Topics(ctx context.Context, tenantID, id string) (TopicList, error) {
	m, err := s.Contexts.GetFresh(ctx, tenantID, id)
	if err != nil {
		return TopicList{}, notFound(err)
	}
	snap := m.Snapshot()
	return TopicList{L1Cursor: snap.L1Cursor, PendingTurns: len(snap.Pending), Topics: snap.Topics}, nil
}
