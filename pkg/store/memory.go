package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/mithub/mithub/pkg/conversation"
)

const conversationColumns = `id, tenant_id, kind, meeting_id, title, created_at`

const memoryNodeColumns = `id, conversation_id, level, seq, text, tokens, child_ids, created_at`

// CreateConversation stores a new conversation. A meeting conversation
// names the tenant's meeting; a chat conversation has none.
func (s *Store) CreateConversation(ctx context.Context, tenantID, kind, meetingID, title string) (conversation.Conversation, error) {
	switch {
	case kind == conversation.KindMeeting && meetingID == "":
		return conversation.Conversation{}, fmt.Errorf("%w: a meeting conversation needs a meeting id", ErrInvalid)
	case kind == conversation.KindChat && meetingID != "":
		return conversation.Conversation{}, fmt.Errorf("%w: a chat conversation has no meeting", ErrInvalid)
	case kind != conversation.KindMeeting && kind != conversation.KindChat:
		return conversation.Conversation{}, fmt.Errorf("%w: conversation kind %q: want meeting or chat", ErrInvalid, kind)
	}
	var mid any
	if meetingID != "" {
		mid = meetingID
	}
	// The meeting must be the tenant's: the insert selects nothing otherwise.
	rows, err := s.pool.Query(ctx, `
		INSERT INTO conversations (tenant_id, kind, meeting_id, title)
		SELECT $1, $2, $3::uuid, $4
		WHERE $3::uuid IS NULL OR EXISTS (SELECT 1 FROM meetings WHERE id = $3::uuid AND tenant_id = $1)
		RETURNING `+conversationColumns, tenantID, kind, mid, title)
	if err != nil {
		return conversation.Conversation{}, fmt.Errorf("create conversation: %w", translate(err))
	}
	c, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[conversation.Conversation])
	if err != nil {
		return conversation.Conversation{}, fmt.Errorf("create conversation for meeting %s: %w", meetingID, translate(err))
	}
	return c, nil
}

// MeetingConversation returns the conversation of the tenant's meeting,
// creating it (titled after the meeting) on first use.
func (s *Store) MeetingConversation(ctx context.Context, tenantID, meetingID string) (conversation.Conversation, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+conversationColumns+` FROM conversations
		WHERE tenant_id = $1 AND meeting_id = $2 ORDER BY created_at LIMIT 1`, tenantID, meetingID)
	if err != nil {
		return conversation.Conversation{}, fmt.Errorf("find conversation of meeting %s: %w", meetingID, translate(err))
	}
	c, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[conversation.Conversation])
	if err == nil {
		return c, nil
	}
	if err := translate(err); !errors.Is(err, ErrNotFound) {
		return conversation.Conversation{}, fmt.Errorf("find conversation of meeting %s: %w", meetingID, err)
	}
	m, err := s.GetMeeting(ctx, tenantID, meetingID)
	if err != nil {
		return conversation.Conversation{}, err
	}
	// Two callers may race to create it; the older row wins on read.
	if _, err := s.CreateConversation(ctx, tenantID, conversation.KindMeeting, meetingID, m.Title); err != nil {
		return conversation.Conversation{}, err
	}
	return s.MeetingConversation(ctx, tenantID, meetingID)
}

// GetConversation returns the tenant's conversation; another tenant's is
// ErrNotFound.
func (s *Store) GetConversation(ctx context.Context, tenantID, id string) (conversation.Conversation, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+conversationColumns+` FROM conversations
		WHERE id = $1 AND tenant_id = $2`, id, tenantID)
	if err != nil {
		return conversation.Conversation{}, fmt.Errorf("get conversation %s: %w", id, translate(err))
	}
	c, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[conversation.Conversation])
	if err != nil {
		return conversation.Conversation{}, fmt.Errorf("get conversation %s: %w", id, translate(err))
	}
	return c, nil
}

// ListConversations returns the tenant's newest conversations first.
func (s *Store) ListConversations(ctx context.Context, tenantID string, limit int) ([]conversation.Conversation, error) {
	if limit <= 0 || limit > 1000 {
		limit = 100
	}
	rows, err := s.pool.Query(ctx, `SELECT `+conversationColumns+` FROM conversations
		WHERE tenant_id = $1 ORDER BY created_at DESC, id LIMIT $2`, tenantID, limit)
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", translate(err))
	}
	cs, err := pgx.CollectRows(rows, pgx.RowToStructByName[conversation.Conversation])
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", translate(err))
	}
	return cs, nil
}

// AppendTurns stores level-0 nodes (turns). A turn whose seq is already
// stored is skipped, so re-sending is a no-op. It returns how many were
// inserted.
func (s *Store) AppendTurns(ctx context.Context, tenantID, conversationID string, turns []conversation.NewNode) (int, error) {
	if len(turns) == 0 {
		return 0, nil
	}
	seqs := make([]int32, len(turns))
	texts := make([]string, len(turns))
	toks := make([]int32, len(turns))
	for i, t := range turns {
		if t.Level != 0 {
			return 0, fmt.Errorf("%w: a turn is a level-0 node, got level %d", ErrInvalid, t.Level)
		}
		seqs[i], texts[i], toks[i] = int32(t.Seq), t.Text, int32(t.Tokens)
	}
	tag, err := s.pool.Exec(ctx, `
		INSERT INTO memory_nodes (tenant_id, conversation_id, level, seq, text, tokens)
		SELECT $1, c.id, 0, u.seq, u.text, u.tokens
		FROM conversations c, unnest($3::int[], $4::text[], $5::int[]) AS u(seq, text, tokens)
		WHERE c.id = $2 AND c.tenant_id = $1
		ON CONFLICT (conversation_id, level, seq) DO NOTHING`,
		tenantID, conversationID, seqs, texts, toks)
	if err != nil {
		return 0, fmt.Errorf("append turns to %s: %w", conversationID, translate(err))
	}
	return int(tag.RowsAffected()), nil
}

// NextTurnSeq is the number of turns stored for the conversation (the
// seq the next turn gets).
func (s *Store) NextTurnSeq(ctx context.Context, tenantID, conversationID string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT coalesce((`+lastTurnSeqOfTenant+`) + 1, 0)`, conversationID, tenantID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count turns of %s: %w", conversationID, translate(err))
	}
	return n, nil
}

// NodeRefs returns the conversation's nodes with fromLevel <= level <=
// toLevel, without text, ordered by level and seq.
func (s *Store) NodeRefs(ctx context.Context, tenantID, conversationID string, fromLevel, toLevel int) ([]conversation.NodeRef, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, level, seq, tokens, child_ids FROM memory_nodes
		WHERE conversation_id = $1 AND tenant_id = $2 AND level BETWEEN $3 AND $4
		ORDER BY level, seq`, conversationID, tenantID, fromLevel, toLevel)
	if err != nil {
		return nil, fmt.Errorf("list nodes of %s: %w", conversationID, translate(err))
	}
	refs, err := pgx.CollectRows(rows, pgx.RowToStructByName[conversation.NodeRef])
	if err != nil {
		return nil, fmt.Errorf("list nodes of %s: %w", conversationID, translate(err))
	}
	return refs, nil
}

// NodesByID returns the conversation's nodes with these ids, in id order.
func (s *Store) NodesByID(ctx context.Context, tenantID, conversationID string, ids []int64) ([]conversation.Node, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+memoryNodeColumns+` FROM memory_nodes
		WHERE conversation_id = $1 AND tenant_id = $2 AND id = ANY($3) ORDER BY id`, conversationID, tenantID, ids)
	if err != nil {
		return nil, fmt.Errorf("read nodes of %s: %w", conversationID, translate(err))
	}
	ns, err := pgx.CollectRows(rows, pgx.RowToStructByName[conversation.Node])
	if err != nil {
		return nil, fmt.Errorf("read nodes of %s: %w", conversationID, translate(err))
	}
	return ns, nil
}

// NodesAtLevel returns the conversation's nodes of one level with
// fromSeq <= seq < toSeq, in seq order.
func (s *Store) NodesAtLevel(ctx context.Context, tenantID, conversationID string, level, fromSeq, toSeq int) ([]conversation.Node, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+memoryNodeColumns+` FROM memory_nodes
		WHERE conversation_id = $1 AND tenant_id = $2 AND level = $3 AND seq >= $4 AND seq < $5
		ORDER BY seq`, conversationID, tenantID, level, fromSeq, toSeq)
	if err != nil {
		return nil, fmt.Errorf("read level %d of %s: %w", level, conversationID, translate(err))
	}
	ns, err := pgx.CollectRows(rows, pgx.RowToStructByName[conversation.Node])
	if err != nil {
		return nil, fmt.Errorf("read level %d of %s: %w", level, conversationID, translate(err))
	}
	return ns, nil
}

// PutSummary stores a summary node (level >= 1). A node already at
// (level, seq) with the same children is kept and returned as is; one with
// other children (the conversation grew under a partial merge) is replaced
// by a new row with a new id, so parents that named the old id no longer
// match either. It reports whether the stored row is new. Writers racing
// on one node agree: the one that loses the insert reads the winner's row
// and returns it (created false) when it covers the same children.
func (s *Store) PutSummary(ctx context.Context, tenantID, conversationID string, n conversation.NewNode) (conversation.Node, bool, error) {
	if n.Level < 1 {
		return conversation.Node{}, false, fmt.Errorf("%w: a summary is at level >= 1, got %d", ErrInvalid, n.Level)
	}
	if n.ChildIDs == nil {
		n.ChildIDs = []int64{}
	}
	var (
		out     conversation.Node
		created bool
	)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Each statement sees the rows other writers committed before it
		// (read committed), so a lost insert is visible to the next pass.
		for range putSummaryAttempts {
			var (
				done bool
				err  error
			)
			out, created, done, err = putSummaryOnce(ctx, tx, tenantID, conversationID, n)
			if err != nil || done {
				return err
			}
			var mine bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM conversations WHERE id = $1 AND tenant_id = $2)`,
				conversationID, tenantID).Scan(&mine); err != nil {
				return err
			}
			if !mine {
				return ErrNotFound
			}
		}
		return errors.New("the node kept changing under concurrent writers")
	})
	if err != nil {
		return conversation.Node{}, false, fmt.Errorf("store summary %d/%d of %s: %w", n.Level, n.Seq, conversationID, translate(err))
	}
	return out, created, nil
}

// putSummaryAttempts bounds PutSummary's passes; each lost race means
// another writer committed a node at the same place, so two passes
// settle it unless writers keep replacing it with other children.
const putSummaryAttempts = 8

// putSummaryOnce is one pass of PutSummary: keep the stored node, or
// replace it, or insert a new one. done is false when the insert found a
// row another writer committed meanwhile, or the conversation is not the
// tenant's.
func putSummaryOnce(ctx context.Context, tx pgx.Tx, tenantID, conversationID string, n conversation.NewNode) (out conversation.Node, created, done bool, err error) {
	rows, err := tx.Query(ctx, `SELECT `+memoryNodeColumns+` FROM memory_nodes
		WHERE conversation_id = $1 AND tenant_id = $2 AND level = $3 AND seq = $4 FOR UPDATE`,
		conversationID, tenantID, n.Level, n.Seq)
	if err != nil {
		return out, false, false, err
	}
	old, err := pgx.CollectRows(rows, pgx.RowToStructByName[conversation.Node])
	if err != nil {
		return out, false, false, err
	}
	if len(old) == 1 && slices.Equal(old[0].ChildIDs, n.ChildIDs) {
		return old[0], false, true, nil
	}
	if len(old) == 1 {
		if _, err := tx.Exec(ctx, `DELETE FROM memory_nodes WHERE id = $1`, old[0].ID); err != nil {
			return out, false, false, err
		}
	}
	rows, err = tx.Query(ctx, `
		INSERT INTO memory_nodes (tenant_id, conversation_id, level, seq, text, tokens, child_ids)
		SELECT $1, c.id, $3, $4, $5, $6, $7 FROM conversations c WHERE c.id = $2 AND c.tenant_id = $1
		ON CONFLICT (conversation_id, level, seq) DO NOTHING
		RETURNING `+memoryNodeColumns,
		tenantID, conversationID, n.Level, n.Seq, n.Text, n.Tokens, n.ChildIDs)
	if err != nil {
		return out, false, false, err
	}
	ins, err := pgx.CollectRows(rows, pgx.RowToStructByName[conversation.Node])
	if err != nil || len(ins) == 0 {
		return out, false, false, err
	}
	return ins[0], true, true, nil
}

// DeleteSummaries removes the conversation's summary nodes (level >= 1),
// keeping its turns; the next compression starts over.
func (s *Store) DeleteSummaries(ctx context.Context, tenantID, conversationID string) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM memory_nodes
		WHERE conversation_id = $1 AND tenant_id = $2 AND level >= 1`, conversationID, tenantID)
	if err != nil {
		return 0, fmt.Errorf("delete summaries of %s: %w", conversationID, translate(err))
	}
	return int(tag.RowsAffected()), nil
}

// MeetingLines returns the tenant's meeting's transcript lines after
// afterSeq in order, at most limit, each with the speaker's name (else
// id): what a meeting conversation copies into its turns.
func (s *Store) MeetingLines(ctx context.Context, tenantID, meetingID string, afterSeq, limit int) ([]conversation.MeetingLine, error) {
	ts, err := s.ListTranscripts(ctx, tenantID, meetingID, afterSeq, limit)
	if err != nil {
		return nil, err
	}
	out := make([]conversation.MeetingLine, len(ts))
	for i, t := range ts {
		sp := t.SpeakerName
		if sp == "" {
			sp = t.SpeakerID
		}
		out[i] = conversation.MeetingLine{Seq: t.Seq, Speaker: sp, Text: t.Text}
	}
	return out, nil
}

var _ conversation.Store = (*Store)(nil)
