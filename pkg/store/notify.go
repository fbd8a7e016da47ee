package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// MemoryBankChannel is the PostgreSQL notification channel on which every
// committed memory-bank write names its tenant and project.
const MemoryBankChannel = "mithub_memory_bank"

// notifyMemoryBank queues a notification that is sent when tx commits
// and dropped when it rolls back.
func notifyMemoryBank(ctx context.Context, tx pgx.Tx, tenantID, project string) error {
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, MemoryBankChannel, tenantID+"/"+project)
	return err
}

// ListenMemoryBank listens for memory-bank writes on a connection of its
// own: ready is called once it listens, then changed for each committed
// write, from any process using this database. It returns when ctx is
// done (nil) or the connection fails; a caller that caches memory banks
// must drop them then, since writes made while nobody listened are not
// told again.
func (s *Store) ListenMemoryBank(ctx context.Context, ready func(), changed func(tenantID, project string)) error {
	return s.listen(ctx, MemoryBankChannel, "memory-bank writes", ready, func(payload string) {
		if tenantID, project, ok := strings.Cut(payload, "/"); ok {
			changed(tenantID, project)
		}
	})
}

// listen listens on channel on a connection of its own: ready is called
// once it listens, then notify with each notification's payload. It
// returns when ctx is done (nil) or the connection fails; what names the
// notifications in its errors.
func (s *Store) listen(ctx context.Context, channel, what string, ready func(), notify func(payload string)) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("listen for %s: %w", what, translate(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return fmt.Errorf("listen for %s: %w", what, translate(err))
	}
	ready()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("wait for %s: %w", what, translate(err))
		}
		if n.Channel == channel {
			notify(n.Payload)
		}
	}
}

// MeetingsChannel is the PostgreSQL notification channel on which every
// committed change of a meeting's counters (a turn stored, topics saved,
// the end-of-meeting pass, the meeting ended) is announced. Migration 0006
// adds the trigger that announces topic saves, end passes and ends when
// they commit; stored turns are announced by the ingesting process just
// after the commit (meetingNotifier).
const MeetingsChannel = "mithub_meetings"

// MeetingChange is one notification of MeetingsChannel: the meeting's
// counters as the committing transaction left them, or, with Released,
// that a process gave the meeting's L1 ownership up (only MeetingID is
// set then).
type MeetingChange struct {
	Released            bool
	TenantID, MeetingID string
	// Utterances is the number of stored transcripts (next_seq).
	Utterances   int
	TopicVersion int64
	EndPass      int
	Ended        bool
}

// parseMeetingChange reads tenant/meeting/next_seq/topic_version/l1_end_pass/ended.
func parseMeetingChange(payload string) (MeetingChange, bool) {
	if id, ok := strings.CutPrefix(payload, releasedPrefix); ok {
		return MeetingChange{Released: true, MeetingID: id}, isUUID(id)
	}
	f := strings.Split(payload, "/")
	if len(f) != 6 {
		return MeetingChange{}, false
	}
	next, err1 := strconv.Atoi(f[2])
	ver, err2 := strconv.ParseInt(f[3], 10, 64)
	end, err3 := strconv.Atoi(f[4])
	if err1 != nil || err2 != nil || err3 != nil || (f[5] != "0" && f[5] != "1") {
		return MeetingChange{}, false
	}
	return MeetingChange{TenantID: f[0], MeetingID: f[1], Utterances: next, TopicVersion: ver, EndPass: end, Ended: f[5] == "1"}, true
}

// ListenMeetings listens for meeting changes on a connection of its own:
// ready is called once it listens, then changed for each committed
// change, from any process using this database (notifications of one
// meeting arrive in commit order). It returns when ctx is done (nil) or
// the connection fails; a caller that caches meetings must compare them
// with their rows again after listening anew, since changes made while
// nobody listened are not told again.
func (s *Store) ListenMeetings(ctx context.Context, ready func(), changed func(MeetingChange)) error {
	return s.listen(ctx, MeetingsChannel, "meeting changes", ready, func(payload string) {
		if c, ok := parseMeetingChange(payload); ok {
			changed(c)
		}
	})
}

// meetingNotifier announces on MeetingsChannel the meetings whose turns
// this process stored, just after each commit rather than inside it: a
// NOTIFY makes its transaction's commit take a database-wide lock, which
// would line up the ingest commits of every meeting. One statement is in
// flight at a time; meetings stored meanwhile go into the next, so a
// burst of batches costs one notifying commit. The payload carries the
// meeting row's counters as that statement reads them. A process that
// dies between a commit and its announcement loses the announcement;
// readers compare with the meeting row, so they still see the turns, and
// held contexts catch up at the meeting's next change.
type meetingNotifier struct {
	pool *pgxpool.Pool

	mu      sync.Mutex
	pending map[string]bool
	running bool
}

// notifySQL announces the meetings' current counters, one notification
// each, in the trigger's payload format.
const notifySQL = `SELECT pg_notify($1, m.tenant_id::text || '/' || m.id::text || '/' || m.next_seq::text || '/' ||
	m.topic_version::text || '/' || m.l1_end_pass::text || '/' || CASE WHEN m.ended_at IS NULL THEN '0' ELSE '1' END)
	FROM meetings m WHERE m.id = ANY($2::uuid[])`

// notifyTimeout bounds one announcing statement.
const notifyTimeout = 5 * time.Second

func (n *meetingNotifier) add(meetingID string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.pending == nil {
		n.pending = map[string]bool{}
	}
	n.pending[meetingID] = true
	if !n.running {
		n.running = true
		go n.run()
	}
}

func (n *meetingNotifier) run() {
	for {
		n.mu.Lock()
		if len(n.pending) == 0 {
			n.running = false
			n.mu.Unlock()
			return
		}
		ids := make([]string, 0, len(n.pending))
		for id := range n.pending {
			ids = append(ids, id)
		}
		clear(n.pending)
		n.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
		// Best effort: see the type's comment.
		_, _ = n.pool.Exec(ctx, notifySQL, MeetingsChannel, ids)
		cancel()
	}
}
