package meetingctx

import (
	"context"
	"fmt"
	"time"
)

// Ownership decides which process runs a meeting's L1 work when several
// processes (agent-api replicas) keep a context of the same meeting. The
// owner segments, summarises, embeds and saves; every other process
// serves the topics the owner saved (see Manager.Refresh) and only tries
// to take the meeting over while L1 work is due, so each chunk is
// processed once whatever the number of processes. store.L1Owners is one.
type Ownership interface {
	// TryAcquire makes this process the meeting's owner unless another
	// process is; it reports whether this process owns the meeting.
	TryAcquire(ctx context.Context, meetingID string) (bool, error)
	// Held reports whether this process still owns the meeting.
	Held(ctx context.Context, meetingID string) bool
	// Release gives the ownership up.
	Release(ctx context.Context, meetingID string)
}

// Head is what a meeting's stored row says about it: the counters a
// context is compared with.
type Head struct {
	// Turns is the number of stored turns (the last seq is Turns-1).
	Turns int
	// TopicVersion counts the saves of the meeting's topics.
	TopicVersion int64
	// EndPass is the last seq the end-of-meeting pass covered, -1 before.
	EndPass int
	Ended   bool
}

// SharedSource reads what any process stored for a meeting.
type SharedSource interface {
	Head(ctx context.Context, tenantID, meetingID string) (Head, error)
	// Topics returns the stored topics in seq order.
	Topics(ctx context.Context, tenantID, meetingID string) ([]Topic, error)
	// TurnsFrom returns every stored turn with seq >= from, in order.
	TurnsFrom(ctx context.Context, tenantID, meetingID string, from int) ([]Turn, error)
}

// EndPassStore is a TopicStore that also records that the end-of-meeting
// pass covered turns up to l1Cursor (Head.EndPass), so that no process runs
// it again over the same turns.
type EndPassStore interface {
	SaveEndPass(ctx context.Context, tenantID, meetingID string, l1Cursor int, topics []Topic) error
}

// DefaultOwnerRetry is how often a process with L1 work due tries to take
// a meeting over from its owner.
const DefaultOwnerRetry = time.Second

// shared reports whether the engine shares meetings with other processes.
func (e *Engine) shared() bool {
	return e != nil && e.deps.Owner != nil && e.deps.Shared != nil
}

// ownerLocked reports whether this context runs the meeting's L1 work:
// always for an engine of its own, else while it holds the ownership.
func (m *Manager) ownerLocked() bool {
	return !m.eng.shared() || m.owner
}

// Owner reports whether this process runs the meeting's L1 work.
func (m *Manager) Owner() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.eng != nil && m.ownerLocked()
}

// TopicVersion is the stored topic version the context's topics were
// adopted at (see Refresh).
func (m *Manager) TopicVersion() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.version
}

// claim makes sure this process owns the meeting before the runner takes
// work. A context that just took the meeting over first catches up with
// what the previous owner stored. When another process owns the meeting
// the runner stops and tries again after the retry interval, while work
// is still due.
func (m *Manager) claim() bool {
	if !m.eng.shared() {
		return true
	}
	o := m.eng.deps.Owner
	m.mu.Lock()
	owner := m.owner
	m.mu.Unlock()
	if owner {
		if o.Held(m.eng.ctx, m.meetingID) {
			return true
		}
		m.eng.deps.Log.Warn("L1 ownership lost", "meeting_id", m.meetingID)
		m.mu.Lock()
		m.owner = false
		m.mu.Unlock()
	}
	ok, err := o.TryAcquire(m.eng.ctx, m.meetingID)
	if err == nil && ok {
		if err = m.Refresh(m.eng.ctx, m.eng.deps.Shared, nil); err != nil {
			o.Release(m.eng.ctx, m.meetingID)
			ok = false
		}
	}
	if err != nil {
		m.eng.deps.Log.Warn("taking L1 ownership failed", "meeting_id", m.meetingID, "err", err)
	}
	m.mu.Lock()
	if ok && !m.retired {
		m.owner = true
		m.mu.Unlock()
		m.eng.deps.Log.Debug("L1 owner", "meeting_id", m.meetingID)
		return true
	}
	m.running = false
	m.notifyLocked()
	if !m.retired && !m.waiting {
		m.waiting = true
		time.AfterFunc(m.eng.deps.OwnerRetry, m.retry)
	}
	m.mu.Unlock()
	if ok {
		o.Release(m.eng.ctx, m.meetingID)
	}
	return false
}

// TakeOver tries to take the meeting over now, when L1 work is due and
// another process owns it: its owner just gave it up.
func (m *Manager) TakeOver() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.waiting = false
	m.kickLocked()
}

// retry tries again to take the meeting over, when work is still due.
func (m *Manager) retry() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.waiting = false
	m.kickLocked()
}

// releaseLocked gives the ownership of a retired context up.
func (m *Manager) releaseLocked() {
	if !m.eng.shared() || !m.owner {
		return
	}
	m.owner = false
	o, id := m.eng.deps.Owner, m.meetingID
	go o.Release(context.Background(), id)
}

// Refresh brings the context up to what the store holds: it applies the
// stored turns past the cursor, marks the meeting ended when its row says
// so, and, unless this process owns the meeting, adopts the stored topics
// when they are newer than its own. head is the meeting row's counters
// when the caller has just read them (nil reads them); nothing else is
// read unless the context is behind them.
func (m *Manager) Refresh(ctx context.Context, src SharedSource, head *Head) error {
	if head == nil {
		h, err := src.Head(ctx, m.tenantID, m.meetingID)
		if err != nil {
			return err
		}
		head = &h
	}
	m.mu.Lock()
	cursor, version := m.cursor, m.version
	adopt := m.eng.shared() && !m.owner && head.TopicVersion > version
	ended := m.ended
	endPass := m.endPassAt
	m.mu.Unlock()

	if adopt {
		topics, err := src.Topics(ctx, m.tenantID, m.meetingID)
		if err != nil {
			return err
		}
		m.mu.Lock()
		from := min(m.firstChangedLocked(topics), m.cursor+1)
		m.mu.Unlock()
		turns, err := src.TurnsFrom(ctx, m.tenantID, m.meetingID, from)
		if err != nil {
			return err
		}
		return m.adopt(*head, topics, turns)
	}
	if head.Turns-1 > cursor {
		turns, err := src.TurnsFrom(ctx, m.tenantID, m.meetingID, cursor+1)
		if err != nil {
			return err
		}
		if _, err := m.Apply(turns); err != nil {
			return fmt.Errorf("refresh meeting %s: %w", m.meetingID, err)
		}
	}
	if (head.Ended && !ended) || (m.eng.shared() && head.EndPass > endPass) {
		m.mu.Lock()
		if head.Ended && !m.ended {
			m.ended, m.flush = true, true
		}
		if m.eng.shared() && !m.owner && head.EndPass > m.endPassAt {
			m.endPassAt = head.EndPass
		}
		m.notifyLocked()
		m.kickLocked()
		m.mu.Unlock()
	}
	return nil
}

// firstChangedLocked is the lowest seq of a topic that differs between
// the context and topics (added, removed, or changed in span or version),
// or past the cursor when none does.
func (m *Manager) firstChangedLocked(topics []Topic) int {
	first := m.cursor + 1
	old := make(map[string]Topic, len(m.topics))
	for _, t := range m.topics {
		old[t.ID] = t
	}
	seen := make(map[string]bool, len(topics))
	for _, t := range topics {
		seen[t.ID] = true
		if o, ok := old[t.ID]; !ok || !sameTopic(o, t) {
			first = min(first, t.StartSeq)
		}
	}
	for _, t := range m.topics {
		if !seen[t.ID] {
			first = min(first, t.StartSeq)
		}
	}
	return max(first, 0)
}

func sameTopic(a, b Topic) bool {
	return a.Version == b.Version && a.StartSeq == b.StartSeq && a.EndSeq == b.EndSeq
}

// adopt replaces the context's topics with stored ones. turns are the
// stored turns from the first changed topic on.
func (m *Manager) adopt(h Head, topics []Topic, turns []Turn) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.owner || h.TopicVersion <= m.version {
		_, err := m.apply(turns, true)
		if err == nil {
			m.kickLocked()
		}
		return err
	}
	if _, err := m.apply(turns, true); err != nil {
		return fmt.Errorf("refresh meeting %s: %w", m.meetingID, err)
	}
	bySeq := make(map[int]Turn, len(turns)+len(m.pending)+len(m.l1Tail))
	for _, group := range [][]Turn{m.l1Tail, m.pending, turns} {
		for _, t := range group {
			bySeq[t.Seq] = t
		}
	}
	span := func(from, to int) ([]Turn, error) {
		out := make([]Turn, 0, max(0, to-from+1))
		for s := from; s <= to; s++ {
			t, ok := bySeq[s]
			if !ok {
				return nil, fmt.Errorf("refresh meeting %s: turn %d of a stored topic is not loaded", m.meetingID, s)
			}
			out = append(out, t)
		}
		return out, nil
	}
	oldLex := make(map[string]int, len(m.topics))
	for i, t := range m.topics {
		oldLex[t.ID] = i
	}
	end := -1
	lex := make([]termVector, len(topics))
	for i, t := range topics {
		if t.EndSeq > m.cursor {
			return fmt.Errorf("refresh meeting %s: stored topic ends at %d past the stored turns (%d)", m.meetingID, t.EndSeq, m.cursor)
		}
		end = max(end, t.EndSeq)
		if k, ok := oldLex[t.ID]; ok && sameTopic(m.topics[k], t) {
			lex[i] = m.lex[k]
			continue
		}
		ts, err := span(t.StartSeq, t.EndSeq)
		if err != nil {
			return err
		}
		lex[i] = indexTurns(ts)
	}
	pending, err := span(end+1, m.cursor)
	if err != nil {
		return err
	}
	tail, err := span(max(0, end+1-tailTurns), end)
	if err != nil {
		return err
	}
	m.topics, m.lex, m.l1Cursor, m.l1Tail = copyTopics(topics), lex, end, tail
	m.pending, m.pendTokens = pending, 0
	for _, t := range pending {
		m.pendTokens += t.Tokens
	}
	m.version, m.dirty = h.TopicVersion, false
	m.endPassAt = max(m.endPassAt, h.EndPass)
	if h.Ended && !m.ended {
		m.ended, m.flush = true, true
	}
	m.notifyLocked()
	m.kickLocked()
	return nil
}
