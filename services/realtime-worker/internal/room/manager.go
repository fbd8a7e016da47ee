package room

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
)

// Lease timing.
const (
	// defaultLeaseTTL is how long a lease outlives its last renewal; it is
	// renewed every third of that.
	defaultLeaseTTL = 30 * time.Second
	// defaultLeaseRetry is how often a room whose lease another owner
	// holds is tried again.
	defaultLeaseRetry = 2 * time.Second
	// endTimeout bounds flushing and ending a meeting after its room.
	endTimeout = 15 * time.Second
)

// Meetings is the part of pkg/store the manager needs.
type Meetings interface {
	GetMeeting(ctx context.Context, tenantID, id string) (store.Meeting, error)
	ActiveMeetingForRoom(ctx context.Context, tenantID, roomName string, m store.NewMeeting) (store.Meeting, bool, error)
	EndMeeting(ctx context.Context, tenantID, id string) (store.Meeting, error)
	EndActiveMeetingsOfRoom(ctx context.Context, tenantID, roomName string) ([]store.Meeting, error)
}

// Ender ends a meeting at agent-api, which also flushes its topics.
type Ender interface {
	EndMeeting(ctx context.Context, meetingID string) error
}

// ErrMeetingEnded: a join named a meeting that is over.
var ErrMeetingEnded = errors.New("meeting has ended")

// Manager starts and stops the room sessions of one worker.
type Manager struct {
	deps     Deps
	meetings Meetings
	ender    Ender
	leases   Leaser
	owner    string
	leaseTTL time.Duration
	retry    time.Duration
	tenantID string
	log      *slog.Logger
	ctx      context.Context
	wg       sync.WaitGroup
	// runSession runs a session until it ends.
	runSession func(ctx context.Context, s *Session) outcome

	// replay is the transcript replayed into replayRoom.
	replayRoom string
	replay     []transcript.Segment
	replayRate float64

	// mu guards sessions and waiting.
	mu       sync.Mutex
	sessions map[string]*running
	// waiting are the rooms whose lease another owner holds, which this
	// worker takes over once the lease is free.
	waiting map[string]bool
}

// running is a started session.
type running struct {
	meetingID string
	cancel    context.CancelFunc
	// finished asks the session to end the meeting when it stops.
	finished bool
	// leaseLost: another worker took the room's lease.
	leaseLost bool
	done      chan struct{}
}

// ManagerConfig wires a Manager.
type ManagerConfig struct {
	Deps     Deps
	Meetings Meetings
	Ender    Ender
	Leases   Leaser
	// Owner identifies this replica in leases. It must survive a restart
	// of the replica (so that a restarted worker takes its own leases back
	// at once) and differ between replicas.
	Owner string
	// LeaseTTL is how long a lease outlives its last renewal (default 30s).
	LeaseTTL time.Duration
	// LeaseRetry is how often a room whose lease another owner holds is
	// tried again (default 2s).
	LeaseRetry time.Duration
	// TenantID is the tenant the worker writes under.
	TenantID string
}

// NewManager returns a manager whose sessions run until ctx ends.
func NewManager(ctx context.Context, c ManagerConfig) *Manager {
	m := &Manager{
		deps: c.Deps, meetings: c.Meetings, ender: c.Ender, leases: c.Leases, owner: c.Owner,
		leaseTTL: c.LeaseTTL, retry: c.LeaseRetry,
		tenantID: c.TenantID, log: c.Deps.Log, ctx: ctx, sessions: map[string]*running{},
		waiting: map[string]bool{}, runSession: func(ctx context.Context, s *Session) outcome { return s.run(ctx) },
	}
	if m.leaseTTL <= 0 {
		m.leaseTTL = defaultLeaseTTL
	}
	if m.retry <= 0 {
		m.retry = defaultLeaseRetry
	}
	return m
}

// SetReplay replays segs into room's session, rate times real time.
func (m *Manager) SetReplay(room string, segs []transcript.Segment, rate float64) {
	m.replayRoom, m.replay, m.replayRate = room, segs, rate
}

// Join makes the bot record room into meetingID, or into the room's
// active meeting (created when there is none) when meetingID is empty.
// Joining a room this worker already serves is a no-op. When another
// owner holds the room's lease, the worker keeps trying to take it until
// the lease is free (its owner left, or died and the lease expired) or the
// meeting has ended.
func (m *Manager) Join(ctx context.Context, room, meetingID string) (string, error) {
	if id, ok := m.serving(room); ok {
		return id, nil
	}
	meeting, err := m.resolve(ctx, room, meetingID)
	if err != nil {
		return "", err
	}
	if !m.acquire(ctx, room) {
		m.log.Info("room served by another worker; taking it over when its lease is free", "room", room)
		m.await(room, meeting)
		return meeting.ID, nil
	}
	return m.start(room, meeting)
}

// serving returns the meeting of the room's session, if this worker has
// one.
func (m *Manager) serving(room string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.sessions[room]
	if !ok {
		return "", false
	}
	return r.meetingID, true
}

// acquire takes the room's lease; false when another owner holds it.
func (m *Manager) acquire(ctx context.Context, room string) bool {
	if m.leases == nil {
		return true
	}
	ok, err := m.leases.Acquire(ctx, room, m.owner, m.leaseTTL)
	if err != nil {
		// Redis down: joining twice only costs duplicate work, since
		// ingest is idempotent; not joining loses the meeting.
		m.log.Warn("room lease unavailable, joining anyway", "room", room, "err", err)
		return true
	}
	return ok
}

// start runs a session of room recording into meeting; the caller holds
// the room's lease.
func (m *Manager) start(room string, meeting store.Meeting) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.sessions[room]; ok {
		return r.meetingID, nil
	}
	if m.ctx.Err() != nil {
		return "", m.ctx.Err()
	}
	sctx, cancel := context.WithCancel(m.ctx)
	r := &running{meetingID: meeting.ID, cancel: cancel, done: make(chan struct{})}
	m.sessions[room] = r
	s := newSession(m.deps, room, m.tenantID, meeting)
	if room == m.replayRoom {
		s.replay, s.replayRt = m.replay, m.replayRate
	}
	m.wg.Go(func() { m.own(sctx, room, s, r) })
	return meeting.ID, nil
}

// await starts, unless one runs, a loop that tries the room's lease every
// retry interval and starts the session once it is acquired. The loop
// ends with the manager, when this worker serves the room, or when the
// meeting has ended (the worker that served it ended it).
func (m *Manager) await(room string, meeting store.Meeting) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.waiting[room] || m.ctx.Err() != nil {
		return
	}
	m.waiting[room] = true
	m.wg.Go(func() {
		defer func() {
			m.mu.Lock()
			delete(m.waiting, room)
			m.mu.Unlock()
		}()
		m.retryJoin(m.ctx, room, meeting)
	})
}

func (m *Manager) retryJoin(ctx context.Context, room string, meeting store.Meeting) {
	t := time.NewTicker(m.retry)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, ok := m.serving(room); ok {
			return
		}
		mt, err := m.meetings.GetMeeting(ctx, m.tenantID, meeting.ID)
		if err != nil {
			m.log.Warn("check meeting of a room waiting for its lease", "room", room, "meeting_id", meeting.ID, "err", err)
			continue
		}
		if mt.Status == store.MeetingEnded {
			m.log.Info("meeting ended while its room was served by another worker", "room", room, "meeting_id", mt.ID)
			return
		}
		if !m.acquire(ctx, room) {
			continue
		}
		if _, err := m.start(room, mt); err != nil {
			return
		}
		m.log.Info("room taken over", "room", room, "meeting_id", mt.ID)
		return
	}
}

// resolve finds the meeting a join records into.
func (m *Manager) resolve(ctx context.Context, room, meetingID string) (store.Meeting, error) {
	if meetingID == "" {
		meeting, created, err := m.meetings.ActiveMeetingForRoom(ctx, m.tenantID, room, store.NewMeeting{Title: room})
		if err != nil {
			return store.Meeting{}, err
		}
		if created {
			m.log.Info("meeting created for room", "room", room, "meeting_id", meeting.ID)
		}
		return meeting, nil
	}
	meeting, err := m.meetings.GetMeeting(ctx, m.tenantID, meetingID)
	if err != nil {
		return store.Meeting{}, err
	}
	if meeting.Status == store.MeetingEnded {
		return store.Meeting{}, fmt.Errorf("join %s: meeting %s: %w", room, meetingID, ErrMeetingEnded)
	}
	return meeting, nil
}

// own runs a session and cleans up after it: lease, flush, meeting end.
func (m *Manager) own(ctx context.Context, room string, s *Session, r *running) {
	defer close(r.done)
	renewCtx, stopRenew := context.WithCancel(ctx)
	if m.leases != nil {
		go m.renew(renewCtx, room, r)
	}
	out := m.runSession(ctx, s)
	stopRenew()

	m.mu.Lock()
	delete(m.sessions, room)
	ended := out == roomEnded || r.finished
	lost := r.leaseLost
	m.mu.Unlock()

	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endTimeout)
	defer cancel()
	if m.leases != nil {
		if err := m.leases.Release(cctx, room, m.owner); err != nil {
			m.log.Warn("release room lease", "room", room, "err", err)
		}
	}
	if !ended {
		if lost {
			// Another worker took the room over; take it back should
			// that worker die.
			m.await(room, s.meeting)
		}
		return
	}
	if empty, err := m.deps.Writer.Flush(cctx); err != nil || !empty {
		m.log.Warn("meeting ends with segments still spooled", "meeting_id", r.meetingID, "err", err)
	}
	m.end(cctx, r.meetingID)
}

// end marks the meeting ended at agent-api, or directly in the store
// when agent-api cannot be reached.
func (m *Manager) end(ctx context.Context, meetingID string) {
	err := m.ender.EndMeeting(ctx, meetingID)
	if err == nil {
		m.log.Info("meeting ended", "meeting_id", meetingID)
		return
	}
	m.log.Warn("end meeting at agent-api failed, ending it in the store", "meeting_id", meetingID, "err", err)
	if _, err := m.meetings.EndMeeting(ctx, m.tenantID, meetingID); err != nil {
		m.log.Error("end meeting", "meeting_id", meetingID, "err", err)
	}
}

// renew keeps the room's lease while the session runs; a lost lease ends
// the session (another replica took the room over).
func (m *Manager) renew(ctx context.Context, room string, r *running) {
	t := time.NewTicker(m.leaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ok, err := m.leases.Renew(ctx, room, m.owner, m.leaseTTL)
		if err != nil {
			m.log.Warn("renew room lease", "room", room, "err", err)
			continue
		}
		if !ok {
			m.log.Warn("room lease lost, leaving", "room", room)
			m.mu.Lock()
			r.leaseLost = true
			m.mu.Unlock()
			r.cancel()
			return
		}
	}
}

// Finish ends the room's meeting: the local session leaves and ends it,
// or, when no session of this worker serves the room, its active meetings
// are ended in the store.
func (m *Manager) Finish(ctx context.Context, room string) error {
	m.mu.Lock()
	r, ok := m.sessions[room]
	if ok {
		r.finished = true
		r.cancel()
	}
	m.mu.Unlock()
	if ok {
		select {
		case <-r.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ended, err := m.meetings.EndActiveMeetingsOfRoom(ctx, m.tenantID, room)
	if err != nil {
		return err
	}
	for _, mt := range ended {
		m.log.Info("meeting ended", "room", room, "meeting_id", mt.ID)
	}
	return nil
}

// Rooms lists the rooms this worker is in, with their meetings.
func (m *Manager) Rooms() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]string, len(m.sessions))
	for room, r := range m.sessions {
		out[room] = r.meetingID
	}
	return out
}

// Wait waits until every session stopped; cancel the manager's context
// first.
func (m *Manager) Wait() { m.wg.Wait() }
