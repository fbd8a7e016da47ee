package meetingctx

import (
	"errors"
	"fmt"
	"sync"
)

// ErrGap means a turn arrived whose seq is past cursor+1: some earlier turn
// has not been applied yet.
var ErrGap = errors.New("gap in transcript sequence")

// Config bounds the context. Zero values take the defaults.
type Config struct {
	// L0MaxTurns caps the L0 window (default 25).
	L0MaxTurns int
	// L0MaxTokens caps the L0 window's tokens (default 3000). The newest
	// turn is always kept, even when it alone is larger.
	L0MaxTokens int
}

// Defaults of Config.
const (
	DefaultL0MaxTurns  = 25
	DefaultL0MaxTokens = 3000
)

// L0MaxTurnsOrDefault is the effective L0 turn cap.
func (c Config) L0MaxTurnsOrDefault() int { return c.withDefaults().L0MaxTurns }

func (c Config) withDefaults() Config {
	if c.L0MaxTurns <= 0 {
		c.L0MaxTurns = DefaultL0MaxTurns
	}
	if c.L0MaxTokens <= 0 {
		c.L0MaxTokens = DefaultL0MaxTokens
	}
	return c
}

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

// Manager is the live context of one meeting. It is safe for concurrent
// use.
type Manager struct {
	meetingID string
	tenantID  string
	cfg       Config

	mu          sync.Mutex
	cursor      int    // highest applied seq; -1 before the first turn
	l0          []Turn // oldest first
	l0Tokens    int
	totalTokens int64
}

// New returns an empty context for a meeting.
func New(tenantID, meetingID string, cfg Config) *Manager {
	return &Manager{meetingID: meetingID, tenantID: tenantID, cfg: cfg.withDefaults(), cursor: -1}
}

// Restore returns a context rebuilt from stored state: the tail of the
// transcript (in seq order, ending at the meeting's last seq) and the
// meeting's token total.
func Restore(tenantID, meetingID string, cfg Config, tail []Turn, totalTokens int64) (*Manager, error) {
	m := New(tenantID, meetingID, cfg)
	if len(tail) > 0 {
		m.cursor = tail[0].Seq - 1
	}
	if _, err := m.Apply(tail); err != nil {
		return nil, fmt.Errorf("restore meeting %s: %w", meetingID, err)
	}
	m.totalTokens = totalTokens
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
	MeetingID   string `json:"meeting_id"`
	Cursor      int    `json:"cursor"`
	L0          []Turn `json:"l0"`
	L0Tokens    int    `json:"l0_tokens"`
	Turns       int    `json:"turns"`
	TotalTokens int64  `json:"total_tokens"`
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
	}
}
