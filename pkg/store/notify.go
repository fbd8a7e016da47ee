package store

import (
	"context"
	"fmt"
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
