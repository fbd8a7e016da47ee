package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/mcpserver"
)

// TestEmptyMemoryAnswersZeros: before the tenant's first conversation,
// memory_get_stats, memory_should_compress and memory_get_context answer
// an empty memory instead of an error, and create no conversation.
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
	var got struct {
		convmemory.Context
		Text        string `json:"text"`
		Compression string `json:"compression"`
	}
	call(t, cs, "memory_get_context", map[string]any{"budget_tokens": 2000}, &got)
	if got.ConversationID != "" || len(got.Items) != 0 || got.Tokens != 0 || got.Budget != 2000 || got.Compression != "skipped" {
		t.Errorf("get_context = %+v, want an empty context of budget 2000", got)
	}
	convs, err := f.svc.List(context.Background(), f.tenant.ID, 10)
	if err != nil || len(convs) != 0 {
		t.Errorf("conversations after reading an empty memory: %d (%v), want none", len(convs), err)
	}
}

// TestContextBelowTheThresholdKeepsTheStart: a conversation too long for
// the context budget but below the compression threshold (a session
// start) still gets a context that covers it from its first turn, by its
// summaries, rather than only the last turns; afterwards should_compress
// counts that context plus the messages added since.
func TestContextBelowTheThresholdKeepsTheStart(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, mcpserver.Options{})
	var added struct {
		Seq    int `json:"seq"`
		Tokens int `json:"tokens"`
		convmemory.Decision
	}
	raw := 0
	for _, tr := range exampleTurns(t) {
		if strings.TrimSpace(tr.Content) == "" {
			continue
		}
		call(t, cs, "memory_add_message", map[string]any{"role": tr.Speaker, "content": tr.Content}, &added)
		raw += added.Tokens
		if raw > window*4/10 {
			break
		}
	}
	if added.ShouldCompress {
		t.Fatalf("below the threshold: %+v", added.Decision)
	}
	var got struct {
		convmemory.Context
		Compression string `json:"compression"`
	}
	call(t, cs, "memory_get_context", nil, &got)
	if got.Truncated || got.Summaries == 0 || got.Items[0].FromTurn != 0 || got.Tokens > got.Budget || got.Compression != "done" {
		t.Fatalf("context of %d raw tokens in %d: %d summaries from turn %d, %d tokens, truncated %v, compression %q",
			raw, got.Budget, got.Summaries, got.Items[0].FromTurn, got.Tokens, got.Truncated, got.Compression)
	}
	if last := got.Items[len(got.Items)-1]; last.Kind != "turn" || last.ToTurn != added.Seq {
		t.Errorf("the context must end with the last turn verbatim: %+v", last)
	}

	// A larger context than the stored summaries' cover: the caller now
	// holds that.
	call(t, cs, "memory_get_context", map[string]any{"budget_tokens": 2500, "compress": false}, &got)
	st, err := f.svc.Stats(context.Background(), f.tenant.ID, got.ConversationID)
	if err != nil || got.Tokens <= st.LiveTokens {
		t.Fatalf("a 2500-token context (%d tokens) must open summaries beyond the cover's %d tokens (%v)", got.Tokens, st.LiveTokens, err)
	}
	var d convmemory.Decision
	call(t, cs, "memory_should_compress", nil, &d)
	if d.CurrentTokens != got.Tokens {
		t.Errorf("after get_context the live count is %d, want the context's %d", d.CurrentTokens, got.Tokens)
	}
	call(t, cs, "memory_add_message", map[string]any{"role": "user", "content": "결론: 출시일은 4월 2일로 확정"}, &added)
	if added.CurrentTokens != got.Tokens+added.Tokens {
		t.Errorf("add_message counts %d, want context %d + message %d", added.CurrentTokens, got.Tokens, added.Tokens)
	}
	call(t, cs, "memory_should_compress", nil, &d)
	if d.CurrentTokens != got.Tokens+added.Tokens {
		t.Errorf("should_compress counts %d, want context %d + message %d", d.CurrentTokens, got.Tokens, added.Tokens)
	}
	call(t, cs, "memory_should_compress", map[string]any{"current_tokens": 1234}, &d)
	if d.CurrentTokens != 1234 {
		t.Errorf("the caller's own count must win: %d", d.CurrentTokens)
	}
}
