// Package conversation defines the long-conversation memory's data: a
// conversation (a meeting or a chat session), its turns and the
// hierarchical summaries above them, all stored as nodes
// (docs/architecture.md §7), and the persistence contract package store
// implements. Package convmemory compresses, searches and renders them.
package conversation

import (
	"context"
	"time"
)

// Kinds of conversation.
const (
	// KindMeeting: the turns are a meeting's transcript, copied in order.
	KindMeeting = "meeting"
	// KindChat: the turns are messages added one by one.
	KindChat = "chat"
)

// Conversation is a meeting or a plain chat session whose turns and
// hierarchical summaries are nodes.
type Conversation struct {
	ID        string    `db:"id" json:"id"`
	TenantID  string    `db:"tenant_id" json:"-"`
	Kind      string    `db:"kind" json:"kind"`
	MeetingID *string   `db:"meeting_id" json:"meeting_id,omitempty"`
	Title     string    `db:"title" json:"title"`
	CreatedAt time.Time `db:"created_at" json:"created_at"`
}

// Node is one stored node. Level 0 holds the conversation's turns in
// order (seq is the turn number), level 1 the summaries of ~500-token
// chunks of turns, level L>1 merges of level L-1 nodes. ChildIDs are the
// ids of the nodes one level down that a summary covers.
type Node struct {
	ID             int64     `db:"id"`
	ConversationID string    `db:"conversation_id"`
	Level          int       `db:"level"`
	Seq            int       `db:"seq"`
	Text           string    `db:"text"`
	Tokens         int       `db:"tokens"`
	ChildIDs       []int64   `db:"child_ids"`
	CreatedAt      time.Time `db:"created_at"`
}

// NodeRef is a node without its text.
type NodeRef struct {
	ID       int64   `db:"id"`
	Level    int     `db:"level"`
	Seq      int     `db:"seq"`
	Tokens   int     `db:"tokens"`
	ChildIDs []int64 `db:"child_ids"`
}

// NodeMatch is a node found by a term search: its Okapi BM25 score
// against the query's terms and the turns it covers (a turn covers
// itself; -1 when a summary's children are no longer stored).
type NodeMatch struct {
	Node
	Score    float64 `db:"score"`
	FromTurn int     `db:"from_turn"`
	ToTurn   int     `db:"to_turn"`
}

// NewNode is the input of AppendTurns and PutSummary.
type NewNode struct {
	Level    int
	Seq      int
	Text     string
	Tokens   int
	ChildIDs []int64
}

// MeetingLine is one transcript line of a meeting, as a meeting
// conversation copies it into a turn.
type MeetingLine struct {
	Seq int
	// Speaker is the speaker's name, else their id.
	Speaker string
	Text    string
}

// Stamp identifies the state of a conversation's nodes for a cached
// view: turns are only ever appended, and every summary write or removal
// changes the summaries' count or their highest id.
type Stamp struct {
	// NextTurnSeq is the seq after the last turn (0 when there is none).
	NextTurnSeq   int
	Summaries     int
	LastSummaryID int64
}

// Store is the persistence of conversations. Every method is scoped to a
// tenant: another tenant's conversation is errdefs.ErrNotFound.
type Store interface {
	CreateConversation(ctx context.Context, tenantID, kind, meetingID, title string) (Conversation, error)
	GetConversation(ctx context.Context, tenantID, id string) (Conversation, error)
	ListConversations(ctx context.Context, tenantID string, limit int) ([]Conversation, error)
	// MeetingConversation returns the meeting's conversation, creating it
	// on first use.
	MeetingConversation(ctx context.Context, tenantID, meetingID string) (Conversation, error)
	// AppendTurns stores level-0 nodes, skipping seqs already stored, and
	// returns how many it inserted.
	AppendTurns(ctx context.Context, tenantID, conversationID string, turns []NewNode) (int, error)
	// AppendMessage stores one turn after a chat conversation's last one
	// and returns its seq; concurrent calls, from any process, all
	// succeed with consecutive seqs.
	AppendMessage(ctx context.Context, tenantID, conversationID, text string, tokens int) (int, error)
	NextTurnSeq(ctx context.Context, tenantID, conversationID string) (int, error)
	// MemoryStamp returns what a cached view of the nodes is checked
	// against, cheaply.
	MemoryStamp(ctx context.Context, tenantID, conversationID string) (Stamp, error)
	NodeRefs(ctx context.Context, tenantID, conversationID string, fromLevel, toLevel int) ([]NodeRef, error)
	NodesByID(ctx context.Context, tenantID, conversationID string, ids []int64) ([]Node, error)
	NodesAtLevel(ctx context.Context, tenantID, conversationID string, level, fromSeq, toSeq int) ([]Node, error)
	// PutSummary stores a summary node (level >= 1). A node at its level
	// and seq with the same children is kept; one with other children is
	// replaced. It returns the stored node and whether it is new.
	PutSummary(ctx context.Context, tenantID, conversationID string, n NewNode) (Node, bool, error)
	// SearchNodes returns the limit nodes of one conversation (all of the
	// tenant's for conversationID "") that score best by BM25 against
	// terms, which are search terms as textutil.Terms makes them. Every
	// node sharing a term is scored, however old.
	SearchNodes(ctx context.Context, tenantID, conversationID string, terms []string, limit int) ([]NodeMatch, error)
	// MeetingLines returns a meeting's transcript lines after afterSeq in
	// order, at most limit.
	MeetingLines(ctx context.Context, tenantID, meetingID string, afterSeq, limit int) ([]MeetingLine, error)
}
