package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxListed bounds memory_list_conversations.
const maxListed = 100

type startConversationInput struct {
	Title string `json:"title,omitempty" jsonschema:"a title for the new conversation (optional)"`
}

type conversationOutput struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at"`
	// Current: the session's current conversation, which tools use when
	// they are given none.
	Current bool `json:"current"`
}

type listConversationsInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"number of conversations, 1 to 100 (default 20)"`
}

type listConversationsOutput struct {
	Conversations []conversationOutput `json:"conversations"`
}

func (s *session) addConversationTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "memory_start_conversation",
		Description: "Start a new chat conversation and make it the current one: later memory_* calls without conversation_id use it."},
		s.startConversation)
	mcp.AddTool(srv, &mcp.Tool{Name: "memory_list_conversations",
		Description: "List your conversations (chats and meetings), newest first, marking the current one."},
		s.listConversations)
}

func (s *session) startConversation(ctx context.Context, _ *mcp.CallToolRequest, in startConversationInput) (*mcp.CallToolResult, any, error) {
	c, err := s.opts.Memory.StartChat(ctx, s.opts.TenantID, in.Title)
	if err != nil {
		return nil, nil, err
	}
	s.setCurrent(c.ID)
	return nil, conversationOutput{ID: c.ID, Kind: c.Kind, Title: c.Title, CreatedAt: c.CreatedAt, Current: true}, nil
}

func (s *session) listConversations(ctx context.Context, _ *mcp.CallToolRequest, in listConversationsInput) (*mcp.CallToolResult, any, error) {
	if err := checkRange("limit", in.Limit, 0, maxListed); err != nil {
		return nil, nil, err
	}
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	cs, err := s.opts.Memory.List(ctx, s.opts.TenantID, limit)
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	cur := s.current
	s.mu.Unlock()
	out := listConversationsOutput{Conversations: make([]conversationOutput, len(cs))}
	for i, c := range cs {
		out.Conversations[i] = conversationOutput{ID: c.ID, Kind: c.Kind, Title: c.Title, CreatedAt: c.CreatedAt, Current: c.ID == cur}
	}
	return nil, out, nil
}
