package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
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
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("listen for memory-bank writes: %w", translate(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{MemoryBankChannel}.Sanitize()); err != nil {
		return fmt.Errorf("listen for memory-bank writes: %w", translate(err))
	}
	ready()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("wait for memory-bank writes: %w", translate(err))
		}
		tenantID, project, ok := strings.Cut(n.Payload, "/")
		if n.Channel != MemoryBankChannel || !ok {
			continue
		}
		changed(tenantID, project)
	}
}

// MeetingsChannel is the PostgreSQL notification channel on which every
// committed change of a meeting's counters (a turn stored, topics saved,
// the end-of-meeting pass, the meeting ended) is announced; migration 0006
// adds the trigger that sends it.
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
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("listen for meeting changes: %w", translate(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{MeetingsChannel}.Sanitize()); err != nil {
		return fmt.Errorf("listen for meeting changes: %w", translate(err))
	}
	ready()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("wait for meeting changes: %w", translate(err))
		}
		if n.Channel != MeetingsChannel {
			continue
		}
		if c, ok := parseMeetingChange(n.Payload); ok {
			changed(c)
		}
	}
}
