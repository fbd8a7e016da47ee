package mcpserver_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/mcpserver"
)

type listed struct {
	Conversations []struct {
		ID      string `json:"id"`
		Kind    string `json:"kind"`
		Title   string `json:"title"`
		Current bool   `json:"current"`
	} `json:"conversations"`
}

// memory_start_conversation makes a new current conversation that later
// calls use; memory_list_conversations lists newest first; the caller
// hears of every switch.
func TestStartAndListConversations(t *testing.T) {
	f := newFixture(t)
	var (
		mu       sync.Mutex
		switches []string
	)
	cs := f.connect(t, mcpserver.Options{OnConversation: func(id string) {
		mu.Lock()
		switches = append(switches, id)
		mu.Unlock()
	}})

	var empty listed
	call(t, cs, "memory_list_conversations", nil, &empty)
	if empty.Conversations == nil || len(empty.Conversations) != 0 {
		t.Fatalf("an empty tenant lists %+v, want []", empty)
	}
	var a, b struct {
		ID      string `json:"id"`
		Kind    string `json:"kind"`
		Title   string `json:"title"`
		Current bool   `json:"current"`
	}
	call(t, cs, "memory_start_conversation", map[string]any{"title": "설계 리뷰"}, &a)
	if a.ID == "" || a.Kind != "chat" || a.Title != "설계 리뷰" || !a.Current {
		t.Fatalf("started %+v", a)
	}
	var added struct {
		ConversationID string `json:"conversation_id"`
		Seq            int    `json:"seq"`
	}
	call(t, cs, "memory_add_message", map[string]any{"role": "user", "content": "first"}, &added)
	if added.ConversationID != a.ID || added.Seq != 0 {
		t.Fatalf("add went to %+v, want %s seq 0", added, a.ID)
	}
	call(t, cs, "memory_start_conversation", nil, &b)
	if b.ID == "" || b.ID == a.ID || b.Title != "" {
		t.Fatalf("second start %+v", b)
	}
	call(t, cs, "memory_add_message", map[string]any{"role": "user", "content": "second"}, &added)
	if added.ConversationID != b.ID || added.Seq != 0 {
		t.Fatalf("add went to %+v, want %s seq 0", added, b.ID)
	}
	var l listed
	call(t, cs, "memory_list_conversations", map[string]any{"limit": 10}, &l)
	if len(l.Conversations) != 2 || l.Conversations[0].ID != b.ID || !l.Conversations[0].Current ||
		l.Conversations[1].ID != a.ID || l.Conversations[1].Current {
		t.Fatalf("list %+v, want %s (current) then %s", l, b.ID, a.ID)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(switches, []string{a.ID, b.ID}) {
		t.Errorf("switches %v, want [%s %s]", switches, a.ID, b.ID)
	}
	for _, bad := range []map[string]any{{"limit": 101}, {"limit": -1}} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_list_conversations", Arguments: bad})
		if err != nil || !res.IsError {
			t.Errorf("list %v: %v %v, want a tool error", bad, res, err)
		}
	}
}
