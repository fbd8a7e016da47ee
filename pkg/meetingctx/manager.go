package meetingctx

import (
	"errors"
	"fmt"
	"sync"
)

// ErrGap means a turn arrived whose seq is past cursor+1: some earlier turn
// has not been applied yet.
var ErrGap = errors.New("gap in transcript sequence")

// Turn is one final utterance as the context sees it.
type Turn struct {
	Seq         int     `json:"seq"`
	SegmentID   string  `json:"segment_id"`
	SpeakerID   string  `json:"speaker_id"`
	SpeakerName string  `json:"speaker_name"`
	Text        string  `json:"text"`
	StartMS     int64   `json:"start_ms"`
	EndMS       int64   `json:"end_ms"`
	Confidence  float32 `json:"confidence"`
	Tokens      int     `json:"tokens"`
}

// Manager is the live context of one meeting: L0 (recent turns), L1
// (topics), the topic buffer of turns not yet in L1, and speaker
// statistics. It is safe for concurrent use. With an Engine it segments
// the buffer into topics in the background, one chunk at a time, in order.
type Manager struct {
	meetingID string
	tenantID  string
	cfg       Config
	eng       *Engine // nil: L0 and speakers only

	mu          sync.Mutex
	cursor      int    // highest applied seq; -1 before the first turn
	l0          []Turn // oldest first
	l0Tokens    int
	totalTokens int64
	pending     []Turn // turns after l1Cursor, in seq order
	pendTokens  int
	l1Cursor    int    // highest seq covered by a topic; -1 before the first
	l1Tail      []Turn // the last turns covered by topics (up to tailTurns)
	topics      []Topic
	lex         []termVector // lexical index, one entry per topic
	speakers    speakerSet
	running     bool          // the L1 runner is active
	flush       bool          // process the partial last chunk too
	ended       bool          // the meeting ended: run the end-of-meeting pass
	endPassAt   int           // l1Cursor the last end-of-meeting pass covered; -1 before
	restored    []Turn        // an ended meeting's stored turns, for its first end pass
	dirty       bool          // topics changed since the last successful save
	changed     chan struct{} // closed and replaced when L1 work settles
	retired     bool          // evicted: the runner stops after its chunk
	owner       bool          // holds the meeting's L1 ownership (shared engines)
	waiting     bool          // a retry to take the ownership is scheduled
	version     int64         // stored topic version the topics were adopted at
	saveEnd     bool          // the next save records the end-of-meeting pass
}

// New returns an empty context for a meeting. eng may be nil.
func New(tenantID, meetingID string, cfg Config, eng *Engine) *Manager {
	return &Manager{
		meetingID: meetingID, tenantID: tenantID, cfg: cfg.WithDefaults(), eng: eng,
		cursor: -1, l1Cursor: -1, endPassAt: -1, changed: make(chan struct{}),
	}
}

// State is stored state a context is rebuilt from, with no LLM calls.
type State struct {
	// Turns are the meeting's stored transcripts from seq 0, in order.
	Turns []Turn
	// Topics are the persisted L1 topics, in seq order, covering turns
	// 0..N contiguously.
	Topics []Topic
	// Ended: the meeting has ended, so its topics get the end-of-meeting
	// pass once the buffer is segmented (see Finish).
	Ended bool
	// Head, when set, is the meeting row the state was read with: the
	// topic version the topics are at, and how far the end-of-meeting
	// pass has run.
	Head *Head
}

// Restore rebuilds a context from stored state. Turns past the last
// topic become the topic buffer; if a chunk is due, the engine picks it up.
func Restore(tenantID, meetingID string, cfg Config, eng *Engine, st State) (*Manager, error) {
	m := New(tenantID, meetingID, cfg, eng)
	end := -1
	for _, t := range st.Topics {
		end = max(end, t.EndSeq)
	}
	if end >= len(st.Turns) {
		// Topics past the stored transcript cannot be trusted.
		st.Topics, end = nil, -1
	}
	for i, t := range st.Turns {
		if t.Seq != i {
			return nil, fmt.Errorf("restore meeting %s: turn %d has seq %d", meetingID, i, t.Seq)
		}
	}
	m.topics = append([]Topic(nil), st.Topics...)
	m.l1Cursor = end
	m.ended, m.flush = st.Ended, st.Ended
	if st.Head != nil {
		m.version, m.endPassAt = st.Head.TopicVersion, st.Head.EndPass
	}
	if st.Ended {
		// The end pass reads these instead of the store again.
		m.restored = st.Turns
	}
	m.l1Tail = append([]Turn(nil), st.Turns[max(0, end+1-tailTurns):end+1]...)
	m.lex = make([]termVector, len(m.topics))
	for i, t := range m.topics {
		m.lex[i] = indexTurns(st.Turns[t.StartSeq : t.EndSeq+1])
	}
	if _, err := m.apply(st.Turns, false); err != nil {
		return nil, fmt.Errorf("restore meeting %s: %w", meetingID, err)
	}
	m.kickLocked()
	return m, nil
}

// MeetingID returns the meeting this context belongs to.
func (m *Manager) MeetingID() string { return m.meetingID }

// TenantID returns the owning tenant.
func (m *Manager) TenantID() string { return m.tenantID }

// Cursor returns the highest applied seq, or -1.
func (m *Manager) Cursor() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cursor
}

// Apply adds turns in seq order. Turns at or below the cursor are skipped
// (already applied); a turn past cursor+1 stops the apply with ErrGap. It
// returns how many turns were applied.
func (m *Manager) Apply(turns []Turn) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.apply(turns, true)
	if n > 0 {
		m.kickLocked()
	}
	return n, err
}

func (m *Manager) apply(turns []Turn, live bool) (int, error) {
	applied := 0
	for _, t := range turns {
		switch {
		case t.Seq <= m.cursor:
			continue
		case t.Seq > m.cursor+1:
			return applied, fmt.Errorf("%w: have %d, got %d", ErrGap, m.cursor, t.Seq)
		}
		m.pushL0(t)
		m.cursor = t.Seq
		m.totalTokens += int64(t.Tokens)
		m.speakers.add(t)
		if t.Seq > m.l1Cursor && m.eng != nil {
			m.pending = append(m.pending, t)
			m.pendTokens += t.Tokens
		}
		applied++
	}
	return applied, nil
}

func (m *Manager) pushL0(t Turn) {
	m.l0 = append(m.l0, t)
	m.l0Tokens += t.Tokens
	drop := 0
	for len(m.l0)-drop > 1 &&
		(len(m.l0)-drop > m.cfg.L0MaxTurns || m.l0Tokens > m.cfg.L0MaxTokens) {
		m.l0Tokens -= m.l0[drop].Tokens
		drop++
	}
	// Reslicing drops the oldest turns; append reallocates from the live
	// part only, so the backing array stays proportional to the window.
	m.l0 = m.l0[drop:]
}

// Snapshot is a consistent copy of the context.
type Snapshot struct {
	MeetingID   string    `json:"meeting_id"`
	Cursor      int       `json:"cursor"`
	L0          []Turn    `json:"l0"`
	L0Tokens    int       `json:"l0_tokens"`
	Turns       int       `json:"turns"`
	TotalTokens int64     `json:"total_tokens"`
	L1Cursor    int       `json:"l1_cursor"`
	Topics      []Topic   `json:"topics"`
	Pending     []Turn    `json:"pending"`
	PendTokens  int       `json:"pending_tokens"`
	Speakers    []Speaker `json:"speakers"`
	// L1Busy: a chunk or the end-of-meeting pass is running or due.
	L1Busy bool `json:"l1_busy"`
}

// Snapshot copies the current state.
func (m *Manager) Snapshot() Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Snapshot{
		MeetingID:   m.meetingID,
		Cursor:      m.cursor,
		L0:          append([]Turn(nil), m.l0...),
		L0Tokens:    m.l0Tokens,
		Turns:       m.cursor + 1,
		TotalTokens: m.totalTokens,
		L1Cursor:    m.l1Cursor,
		Topics:      copyTopics(m.topics),
		Pending:     append([]Turn(nil), m.pending...),
		PendTokens:  m.pendTokens,
		Speakers:    m.speakers.list(m.cursor),
		L1Busy:      m.running || m.workDueLocked(),
	}
}

func copyTopics(ts []Topic) []Topic {
	out := make([]Topic, len(ts))
	for i, t := range ts {
		out[i] = t
		out[i].Keywords = append([]string(nil), t.Keywords...)
		out[i].MergedFrom = append([]string(nil), t.MergedFrom...)
	}
	return out
}
