package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mithub/mithub/pkg/conversation"
)

// lastTurnSeq selects the last turn seq of conversation $2 by a backward
// scan of the (conversation, level, seq) index: a max() over the same
// rows may be planned as a scan of every turn when the table's statistics
// are stale.
const lastTurnSeq = `SELECT seq FROM memory_nodes WHERE conversation_id = $2 AND level = 0 ORDER BY seq DESC LIMIT 1`

// lastTurnSeqOfTenant is lastTurnSeq for conversation $1 of tenant $2.
const lastTurnSeqOfTenant = `SELECT seq FROM memory_nodes WHERE conversation_id = $1 AND tenant_id = $2 AND level = 0
	ORDER BY seq DESC LIMIT 1`

// AppendMessage stores one turn after the chat conversation's last turn
// and returns its seq. Writers in every process take the conversation's
// row lock in turn, so concurrent adds all succeed, in the order they got
// the lock, with consecutive seqs. The cost does not grow with the
// conversation (lastTurnSeq). A missing conversation, another tenant's or
// a meeting's is ErrNotFound.
func (s *Store) AppendMessage(ctx context.Context, tenantID, conversationID, text string, tokens int) (int, error) {
	var seq int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// NO KEY UPDATE: writers of other nodes (their foreign key takes
		// KEY SHARE) are not held up.
		var id string
		if err := tx.QueryRow(ctx, `SELECT id FROM conversations
			WHERE id = $1 AND tenant_id = $2 AND kind = 'chat' FOR NO KEY UPDATE`,
			conversationID, tenantID).Scan(&id); err != nil {
			return err
		}
		// A new statement: it sees the turns the previous lock holder
		// committed.
		return tx.QueryRow(ctx, `
			INSERT INTO memory_nodes (tenant_id, conversation_id, level, seq, text, tokens)
			VALUES ($1, $2, 0, coalesce((`+lastTurnSeq+`) + 1, 0), $3, $4)
			RETURNING seq`, tenantID, conversationID, text, tokens).Scan(&seq)
	})
	if err != nil {
		return 0, fmt.Errorf("append message to %s: %w", conversationID, translate(err))
	}
	return seq, nil
}

// MemoryStamp says, in one cheap query, what a cached view of the
// conversation's nodes must be checked against.
func (s *Store) MemoryStamp(ctx context.Context, tenantID, conversationID string) (conversation.Stamp, error) {
	var st conversation.Stamp
	err := s.pool.QueryRow(ctx, `SELECT
		coalesce((`+lastTurnSeqOfTenant+`) + 1, 0),
		count(*), coalesce(max(id), 0)
		FROM memory_nodes WHERE conversation_id = $1 AND tenant_id = $2 AND level >= 1`,
		conversationID, tenantID).Scan(&st.NextTurnSeq, &st.Summaries, &st.LastSummaryID)
	if err != nil {
		return conversation.Stamp{}, fmt.Errorf("stamp of %s: %w", conversationID, translate(err))
	}
	return st, nil
}
