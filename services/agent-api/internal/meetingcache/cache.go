// Package meetingcache keeps the per-meeting live contexts of agent-api in an
// expiring LRU and keeps them in step with the transcripts in PostgreSQL.
// A miss rebuilds the context from the store; a context never holds a turn
// that is not stored.
package meetingcache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"golang.org/x/sync/singleflight"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
)

// Store is what the cache reads.
type Store interface {
	GetMeeting(ctx context.Context, tenantID, id string) (store.Meeting, error)
	ListTranscripts(ctx context.Context, tenantID, meetingID string, afterSeq, limit int) ([]store.Transcript, error)
	ListTopics(ctx context.Context, tenantID, meetingID string) ([]store.TopicRow, error)
}

// Observer is told of cache events; nil fields are fine.
type Observer struct {
	Hit, Miss, Evict func()
	// Dropped names a meeting whose context left the cache (evicted or
	// idle past the TTL), so that what is kept beside it can go too.
	Dropped func(tenantID, meetingID string)
}

// Cache maps meeting ids to live contexts.
type Cache struct {
	store  Store
	cfg    meetingctx.Config
	eng    *meetingctx.Engine
	flight singleflight.Group
	obs    Observer

	// mu makes "look up and restart the idle timer" and "insert a rebuilt
	// context unless one is there" atomic, so a context that was evicted
	// while a request held it is never put back over its replacement.
	mu  sync.Mutex
	lru *expirable.LRU[string, *meetingctx.Manager]

	refresh  refresher
	onChange func(meetingID string)
}

// rebuildTimeout bounds one rebuild from the store.
const rebuildTimeout = 10 * time.Second

// syncPage bounds how many transcripts one sync query loads.
const syncPage = 2000

// New returns a cache of at most size meetings, each dropped after ttl
// without access. eng runs L1 work; nil keeps contexts to L0 and speakers.
func New(s Store, cfg meetingctx.Config, eng *meetingctx.Engine, size int, ttl time.Duration, obs Observer) *Cache {
	c := &Cache{store: s, cfg: cfg, eng: eng, obs: obs}
	c.lru = expirable.NewLRU[string, *meetingctx.Manager](size, func(_ string, m *meetingctx.Manager) {
		// An evicted context finishes its current chunk and stops; the
		// next request rebuilds from Postgres.
		m.Retire()
		if obs.Evict != nil {
			obs.Evict()
		}
		if obs.Dropped != nil {
			obs.Dropped(m.TenantID(), m.MeetingID())
		}
	}, ttl)
	return c
}

// Len is the number of cached meetings.
func (c *Cache) Len() int { return c.lru.Len() }

// Get returns the meeting's context, rebuilding it from the store on a miss.
// Another tenant's meeting is store.ErrNotFound.
func (c *Cache) Get(ctx context.Context, tenantID, meetingID string) (*meetingctx.Manager, error) {
	if m, ok := c.touch(meetingID); ok {
		if m.TenantID() != tenantID {
			return nil, store.ErrNotFound
		}
		if c.obs.Hit != nil {
			c.obs.Hit()
		}
		return m, nil
	}
	if c.obs.Miss != nil {
		c.obs.Miss()
	}
	v, err, _ := c.flight.Do(tenantID+"/"+meetingID, func() (any, error) {
		// Callers share this load: one caller's cancellation must not fail
		// the others.
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rebuildTimeout)
		defer cancel()
		st, err := c.load(lctx, tenantID, meetingID)
		if err != nil {
			return nil, err
		}
		m, err := meetingctx.Restore(tenantID, meetingID, c.cfg, c.eng, st)
		if err != nil {
			return nil, err
		}
		return c.insert(meetingID, m), nil
	})
	if err != nil {
		return nil, err
	}
	m := v.(*meetingctx.Manager)
	if m.TenantID() != tenantID {
		return nil, store.ErrNotFound
	}
	return m, nil
}

// load reads what a rebuild needs: whether the meeting ended, its topics,
// then every transcript, so the transcripts read always cover the topics
// read.
func (c *Cache) load(ctx context.Context, tenantID, meetingID string) (meetingctx.State, error) {
	var st meetingctx.State
	switch m, err := c.store.GetMeeting(ctx, tenantID, meetingID); {
	case err == nil:
		st.Ended = m.EndedAt != nil
		h := Head(m)
		st.Head = &h
	case !errors.Is(err, store.ErrNotFound):
		return meetingctx.State{}, err
	}
	rows, err := c.store.ListTopics(ctx, tenantID, meetingID)
	if err != nil {
		return meetingctx.State{}, err
	}
	st.Topics = Topics(rows)
	st.Turns, err = loadTurns(ctx, c.store, tenantID, meetingID, -1)
	if err != nil {
		return meetingctx.State{}, err
	}
	return st, nil
}

// TranscriptRows is what reading a meeting's turns needs.
type TranscriptRows interface {
	ListTranscripts(ctx context.Context, tenantID, meetingID string, afterSeq, limit int) ([]store.Transcript, error)
}

// loadTurns reads the meeting's turns from seq 0, up to upTo (every turn
// when negative), a page at a time.
func loadTurns(ctx context.Context, s TranscriptRows, tenantID, meetingID string, upTo int) ([]meetingctx.Turn, error) {
	var turns []meetingctx.Turn
	for after := -1; ; {
		page, err := s.ListTranscripts(ctx, tenantID, meetingID, after, syncPage)
		if err != nil {
			return nil, err
		}
		for _, t := range Turns(page) {
			if upTo >= 0 && t.Seq > upTo {
				return turns, nil
			}
			turns = append(turns, t)
		}
		if len(page) < syncPage {
			return turns, nil
		}
		after = page[len(page)-1].Seq
	}
}

// TurnSource adapts the store to the engine's meetingctx.TurnSource.
type TurnSource struct{ Rows TranscriptRows }

// LoadTurns implements meetingctx.TurnSource.
func (s TurnSource) LoadTurns(ctx context.Context, tenantID, meetingID string, upTo int) ([]meetingctx.Turn, error) {
	return loadTurns(ctx, s.Rows, tenantID, meetingID, upTo)
}

// touch returns the cached context and restarts its idle timer.
func (c *Cache) touch(meetingID string) (*meetingctx.Manager, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.lru.Get(meetingID)
	if ok {
		c.lru.Add(meetingID, m)
	}
	return m, ok
}

// insert caches m unless a context for the meeting is already there, and
// returns the cached one.
func (c *Cache) insert(meetingID string, m *meetingctx.Manager) *meetingctx.Manager {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.lru.Get(meetingID); ok {
		return cur
	}
	c.lru.Add(meetingID, m)
	return m
}

// Sync loads every stored transcript past the context's cursor and applies
// it. It returns how many turns it applied and the new cursor.
func (c *Cache) Sync(ctx context.Context, tenantID, meetingID string) (applied, cursor int, err error) {
	m, err := c.Get(ctx, tenantID, meetingID)
	if err != nil {
		return 0, 0, err
	}
	return c.syncManager(ctx, m)
}

func (c *Cache) syncManager(ctx context.Context, m *meetingctx.Manager) (applied, cursor int, err error) {
	for {
		from := m.Cursor()
		rows, err := c.store.ListTranscripts(ctx, m.TenantID(), m.MeetingID(), from, syncPage)
		if err != nil {
			return applied, m.Cursor(), err
		}
		if len(rows) > 0 {
			links.remember(ctx, m.MeetingID(), rows[len(rows)-1].Seq)
		}
		n, err := m.Apply(Turns(rows))
		applied += n
		if err != nil {
			return applied, m.Cursor(), fmt.Errorf("sync meeting %s: %w", m.MeetingID(), err)
		}
		if len(rows) < syncPage {
			return applied, m.Cursor(), nil
		}
	}
}

// ApplyInserted applies rows just written by this process. When they do not
// follow the cursor (a concurrent writer's rows landed first, or the context
// was rebuilt in between) the gap is filled from the store, so the context
// always advances in seq order.
func (c *Cache) ApplyInserted(ctx context.Context, tenantID, meetingID string, rows []store.Transcript) (cursor int, err error) {
	m, err := c.Get(ctx, tenantID, meetingID)
	if err != nil {
		return 0, err
	}
	if len(rows) > 0 {
		links.remember(ctx, meetingID, rows[len(rows)-1].Seq)
	}
	if _, err := m.Apply(Turns(rows)); err != nil {
		if !errors.Is(err, meetingctx.ErrGap) {
			return m.Cursor(), err
		}
		_, cur, err := c.syncManager(ctx, m)
		return cur, err
	}
	return m.Cursor(), nil
}

// Turns converts stored transcripts to context turns.
func Turns(rows []store.Transcript) []meetingctx.Turn {
	out := make([]meetingctx.Turn, len(rows))
	for i, r := range rows {
		out[i] = meetingctx.Turn{
			Seq: r.Seq, SegmentID: r.SegmentID, SpeakerID: r.SpeakerID, SpeakerName: r.SpeakerName,
			Text: r.Text, StartMS: r.StartMS, EndMS: r.EndMS, Confidence: r.Confidence, Tokens: r.Tokens,
		}
	}
	return out
}
