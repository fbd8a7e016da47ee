package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// l1OwnerKey is the advisory lock key of a meeting's L1 work.
const l1OwnerKey = `hashtextextended('mithub.l1.' || $1::text, 0)`

// releasedPrefix starts the MeetingsChannel payload that tells a meeting's
// L1 ownership was given up: released/<meeting id>.
const releasedPrefix = "released/"

// l1OwnerTimeout bounds one statement on the lock connection.
const l1OwnerTimeout = 5 * time.Second

// L1Owners makes this process the owner of meetings' L1 work (topic
// segmentation, summaries, embeddings) through session-level advisory
// locks held on one connection of its own, outside the pool. Whoever holds
// a meeting's lock is its only L1 writer; the lock goes with the session,
// so a process that dies (even by SIGKILL) or closes its L1Owners (a
// drain) frees its meetings for another process at once. It is safe for
// concurrent use.
type L1Owners struct {
	cfg *pgx.ConnConfig

	mu     sync.Mutex
	conn   *pgx.Conn
	held   map[string]bool
	closed bool
}

// NewL1Owners returns the process's L1 owner locks; Close releases them.
func (s *Store) NewL1Owners() *L1Owners {
	return &L1Owners{cfg: s.pool.Config().ConnConfig.Copy(), held: map[string]bool{}}
}

// stmtCtx detaches a statement on the lock connection from the caller: a
// cancelled statement closes the connection, and with it every lock.
func stmtCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), l1OwnerTimeout)
}

// dropLocked forgets a broken connection: its session, and so every lock
// it held, is gone.
func (o *L1Owners) dropLocked() {
	if o.conn != nil {
		_ = o.conn.Close(context.Background())
		o.conn = nil
	}
	clear(o.held)
}

// TryAcquire takes the meeting's lock without waiting. It reports whether
// this process holds it (also when it already did); false means another
// process owns the meeting.
func (o *L1Owners) TryAcquire(ctx context.Context, meetingID string) (bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false, nil
	}
	if o.held[meetingID] {
		return true, nil
	}
	sctx, cancel := stmtCtx(ctx)
	defer cancel()
	if o.conn == nil {
		conn, err := pgx.ConnectConfig(sctx, o.cfg)
		if err != nil {
			return false, fmt.Errorf("connect for L1 owner locks: %w", translate(err))
		}
		o.conn = conn
	}
	var ok bool
	if err := o.conn.QueryRow(sctx, `SELECT pg_try_advisory_lock(`+l1OwnerKey+`)`, meetingID).Scan(&ok); err != nil {
		o.dropLocked()
		return false, fmt.Errorf("take L1 owner lock of %s: %w", meetingID, translate(err))
	}
	if ok {
		o.held[meetingID] = true
	}
	return ok, nil
}

// Held reports whether this process still holds the meeting's lock: it
// took it and the session that holds it answers.
func (o *L1Owners) Held(ctx context.Context, meetingID string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.held[meetingID] || o.conn == nil {
		return false
	}
	sctx, cancel := stmtCtx(ctx)
	defer cancel()
	if err := o.conn.Ping(sctx); err != nil {
		o.dropLocked()
		return false
	}
	return true
}

// Release gives the meeting's lock up.
func (o *L1Owners) Release(ctx context.Context, meetingID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.held[meetingID] {
		return
	}
	delete(o.held, meetingID)
	sctx, cancel := stmtCtx(ctx)
	defer cancel()
	if _, err := o.conn.Exec(sctx, `SELECT pg_advisory_unlock(`+l1OwnerKey+`)`, meetingID); err != nil {
		o.dropLocked()
		return
	}
	o.tellReleasedLocked(sctx, []string{meetingID})
}

// tellReleasedLocked announces on MeetingsChannel that the meetings'
// ownership is free, once their locks are gone, so a process with work
// due on them takes them over at once instead of at its next retry.
func (o *L1Owners) tellReleasedLocked(ctx context.Context, ids []string) {
	if len(ids) == 0 || o.conn == nil {
		return
	}
	b := &pgx.Batch{}
	for _, id := range ids {
		b.Queue(`SELECT pg_notify($1, $2)`, MeetingsChannel, releasedPrefix+id)
	}
	if err := o.conn.SendBatch(ctx, b).Close(); err != nil {
		o.dropLocked()
	}
}

// Count is the number of meetings this process owns.
func (o *L1Owners) Count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.held)
}

// Close releases every lock, tells other processes so, ends the session
// and refuses new locks: a drain hands its meetings over at once.
func (o *L1Owners) Close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	if o.conn != nil && len(o.held) > 0 {
		ids := make([]string, 0, len(o.held))
		for id := range o.held {
			ids = append(ids, id)
		}
		ctx, cancel := stmtCtx(context.Background())
		defer cancel()
		if _, err := o.conn.Exec(ctx, `SELECT pg_advisory_unlock_all()`); err == nil {
			o.tellReleasedLocked(ctx, ids)
		}
	}
	o.dropLocked()
}
