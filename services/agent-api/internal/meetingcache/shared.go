package meetingcache

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
)

// Shared adapts the store to meetingctx.SharedSource: what every replica
// stored for a meeting.
type Shared struct{ Rows Store }

// Head implements meetingctx.SharedSource.
func (s Shared) Head(ctx context.Context, tenantID, meetingID string) (meetingctx.Head, error) {
	m, err := s.Rows.GetMeeting(ctx, tenantID, meetingID)
	if err != nil {
		return meetingctx.Head{}, err
	}
	return Head(m), nil
}

// Topics implements meetingctx.SharedSource.
func (s Shared) Topics(ctx context.Context, tenantID, meetingID string) ([]meetingctx.Topic, error) {
	rows, err := s.Rows.ListTopics(ctx, tenantID, meetingID)
	if err != nil {
		return nil, err
	}
	return Topics(rows), nil
}

// TurnsFrom implements meetingctx.SharedSource.
func (s Shared) TurnsFrom(ctx context.Context, tenantID, meetingID string, from int) ([]meetingctx.Turn, error) {
	var turns []meetingctx.Turn
	for after := from - 1; ; {
		page, err := s.Rows.ListTranscripts(ctx, tenantID, meetingID, after, syncPage)
		if err != nil {
			return nil, err
		}
		turns = append(turns, Turns(page)...)
		if len(page) < syncPage {
			return turns, nil
		}
		after = page[len(page)-1].Seq
	}
}

// Head is the counters of a meeting row.
func Head(m store.Meeting) meetingctx.Head {
	return meetingctx.Head{Turns: m.Utterances, TopicVersion: m.TopicVersion, EndPass: m.EndPass, Ended: m.EndedAt != nil}
}

// GetFresh returns the meeting's context caught up with its row: stored
// turns applied, the meeting's end and, on a replica that does not own
// the meeting, the topics its owner saved. Reads use it, so a replica
// that missed a notification still answers from every stored write.
func (c *Cache) GetFresh(ctx context.Context, tenantID, meetingID string) (*meetingctx.Manager, error) {
	row, err := c.store.GetMeeting(ctx, tenantID, meetingID)
	if err != nil {
		return nil, err
	}
	return c.GetAt(ctx, tenantID, meetingID, row)
}

// GetAt is GetFresh for a caller that has just read the meeting row: it
// reads the store only when the context is behind the row.
func (c *Cache) GetAt(ctx context.Context, tenantID, meetingID string, row store.Meeting) (*meetingctx.Manager, error) {
	m, err := c.Get(ctx, tenantID, meetingID)
	if err != nil {
		return nil, err
	}
	h := Head(row)
	if err := m.Refresh(ctx, Shared{c.store}, &h); err != nil {
		return nil, err
	}
	return m, nil
}

// MeetingListener delivers meeting changes; store.Store is one.
type MeetingListener interface {
	ListenMeetings(ctx context.Context, ready func(), changed func(store.MeetingChange)) error
}

// refresher runs at most one refresh per meeting at a time, with the
// newest head it was told.
type refresher struct {
	mu   sync.Mutex
	due  map[string]*meetingctx.Head // nil: read the row
	busy map[string]bool
}

// Run keeps every cached context in step with writes made anywhere: it
// listens for meeting changes until ctx is done and refreshes the cached
// meeting each names; each time it starts listening (again, after a
// failure, backing off from 500 ms to 30 s) it compares every cached
// meeting with its row, since changes made while nobody listened are not
// told again.
func (c *Cache) Run(ctx context.Context, l MeetingListener, log *slog.Logger) {
	backoff := 500 * time.Millisecond
	for {
		started := time.Now()
		err := l.ListenMeetings(ctx, func() { c.refreshAll(ctx, log) }, func(ch store.MeetingChange) {
			if ch.Released {
				if m, ok := c.lru.Peek(ch.MeetingID); ok {
					m.TakeOver()
				}
				return
			}
			h := meetingctx.Head{Turns: ch.Utterances, TopicVersion: ch.TopicVersion, EndPass: ch.EndPass, Ended: ch.Ended}
			if !c.refreshCached(ctx, ch.TenantID, ch.MeetingID, &h, log) {
				c.changed(ch.MeetingID)
			}
		})
		if ctx.Err() != nil {
			return
		}
		if time.Since(started) > time.Minute {
			backoff = 500 * time.Millisecond
		}
		log.Warn("meeting notifications down; reads still compare with the meeting rows", "err", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

// refreshAll schedules a refresh of every cached meeting from its row.
func (c *Cache) refreshAll(ctx context.Context, log *slog.Logger) {
	for _, id := range c.lru.Keys() {
		if m, ok := c.lru.Peek(id); ok {
			c.refreshCached(ctx, m.TenantID(), id, nil, log)
		}
	}
}

// OnChange registers f, told of each meeting a notification names, after
// the cached context (if any) caught up with it. Register before Run.
func (c *Cache) OnChange(f func(meetingID string)) { c.onChange = f }

func (c *Cache) changed(meetingID string) {
	if c.onChange != nil {
		c.onChange(meetingID)
	}
}

// refreshCached refreshes the meeting's context if it is cached, in the
// background, and reports whether it is; refreshes of one meeting run one
// at a time, the last head told winning.
func (c *Cache) refreshCached(ctx context.Context, tenantID, meetingID string, h *meetingctx.Head, log *slog.Logger) bool {
	m, ok := c.lru.Peek(meetingID)
	if !ok || m.TenantID() != tenantID {
		return false
	}
	r := &c.refresh
	r.mu.Lock()
	if r.due == nil {
		r.due, r.busy = map[string]*meetingctx.Head{}, map[string]bool{}
	}
	if old, ok := r.due[meetingID]; ok && (old == nil || h == nil) {
		h = nil
	}
	r.due[meetingID] = h
	if r.busy[meetingID] {
		r.mu.Unlock()
		return true
	}
	r.busy[meetingID] = true
	r.mu.Unlock()
	go func() {
		for {
			r.mu.Lock()
			h, ok := r.due[meetingID]
			if !ok {
				delete(r.busy, meetingID)
				r.mu.Unlock()
				return
			}
			delete(r.due, meetingID)
			r.mu.Unlock()
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rebuildTimeout)
			if err := m.Refresh(rctx, Shared{c.store}, h); err != nil {
				log.Warn("refresh of a cached meeting failed; the next read catches up", "meeting_id", meetingID, "err", err)
			}
			cancel()
			c.changed(meetingID)
		}
	}()
	return true
}
