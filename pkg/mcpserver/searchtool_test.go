package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/mcpserver"
)

type searchResult struct {
	Scope          string           `json:"scope"`
	ConversationID string           `json:"conversation_id"`
	Hits           []convmemory.Hit `json:"hits"`
}

// memory_search searches the current conversation unless scope is all;
// another tenant's conversations are never found.
func TestSearchToolScope(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cs := f.connect(t, mcpserver.Options{})

	var empty searchResult
	call(t, cs, "memory_search", map[string]any{"query": "deploy key"}, &empty)
	if len(empty.Hits) != 0 || empty.ConversationID != "" {
		t.Errorf("before the first message: %+v, want no hits", empty)
	}

	other, err := f.st.EnsureTenant(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	chat := func(tenantID, text string) string {
		c, err := f.svc.StartChat(ctx, tenantID, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.AddMessage(ctx, tenantID, c.ID, "user", text); err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	older := chat(f.tenant.ID, "the deploy key rotates on Friday")
	current := chat(f.tenant.ID, "we rotate the deploy key monthly")
	theirs := chat(other.ID, "their deploy key lives in the vault")
	// A tool given a conversation makes it the session's current one.
	var stats convmemory.Stats
	call(t, cs, "memory_get_stats", map[string]any{"conversation_id": current}, &stats)

	tests := []struct {
		name      string
		args      map[string]any
		wantScope string
		want      []string
	}{
		{"default: the current conversation", map[string]any{"query": "deploy key"}, "conversation", []string{current}},
		{"a named conversation", map[string]any{"query": "deploy key", "conversation_id": older}, "conversation", []string{older}},
		{"all of the tenant's", map[string]any{"query": "deploy key", "scope": "all"}, "all", []string{older, current}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got searchResult
			call(t, cs, "memory_search", tt.args, &got)
			convs := map[string]bool{}
			for _, h := range got.Hits {
				convs[h.ConversationID] = true
			}
			if got.Scope != tt.wantScope || len(convs) != len(tt.want) || convs[theirs] {
				t.Fatalf("scope %q, hits from %v; want scope %q, hits from %v", got.Scope, convs, tt.wantScope, tt.want)
			}
			for _, id := range tt.want {
				if !convs[id] {
					t.Errorf("hits from %v, want %v", convs, tt.want)
				}
			}
		})
	}

	bad := []struct {
		name     string
		args     map[string]any
		wantText string
	}{
		{"unknown scope", map[string]any{"query": "key", "scope": "everything"}, "scope"},
		{"scope all with a conversation", map[string]any{"query": "key", "scope": "all", "conversation_id": older}, "conversation_id"},
		{"another tenant's conversation", map[string]any{"query": "key", "conversation_id": theirs}, "not found"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_search", Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(text(res), tt.wantText) {
				t.Errorf("IsError %v, text %q; want an error mentioning %q", res.IsError, text(res), tt.wantText)
			}
		})
	}
}
