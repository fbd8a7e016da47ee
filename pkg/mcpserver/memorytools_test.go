package mcpserver_test

import (
	"context"
	"testing"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/mcpserver"
)

// TestEmptyMemoryAnswersZeros: before the tenant's first conversation,
// memory_get_stats and memory_should_compress answer an empty memory
// instead of an error, and create no conversation.
func TestEmptyMemoryAnswersZeros(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, mcpserver.Options{})

	var stats convmemory.Stats
	call(t, cs, "memory_get_stats", nil, &stats)
	if stats.ConversationID != "" || stats.Turns != 0 || stats.RawTokens != 0 || stats.LiveTokens != 0 || stats.Levels != 0 {
		t.Errorf("stats = %+v, want zeros", stats)
	}
	tests := []struct {
		name string
		give map[string]any
	}{
		{name: "live tokens", give: nil},
		{name: "caller's count", give: map[string]any{"current_tokens": 7000, "context_window": window}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d struct {
				ConversationID string `json:"conversation_id"`
				convmemory.Decision
			}
			call(t, cs, "memory_should_compress", tt.give, &d)
			if d.ShouldCompress || d.CurrentTokens != 0 || d.ConversationID != "" {
				t.Errorf("should_compress = %+v, want false with 0 tokens", d)
			}
		})
	}
	convs, err := f.svc.List(context.Background(), f.tenant.ID, 10)
	if err != nil || len(convs) != 0 {
		t.Errorf("conversations after reading an empty memory: %d (%v), want none", len(convs), err)
	}
}
