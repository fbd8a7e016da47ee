package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/mcpserver"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/tokens"
)

const window = 8192

type fixture struct {
	st     *store.Store
	tenant store.Tenant
	svc    *convmemory.Service
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st := storetest.New(t)
	tenant, err := st.EnsureTenant(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	count, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	eng := convmemory.NewEngine(st, count, convmemory.NewLocal(), convmemory.Config{ContextWindow: window})
	return &fixture{st: st, tenant: tenant, svc: convmemory.NewService(eng, convmemory.NewInline(eng))}
}

// connect runs a server for the fixture's tenant and returns a client
// session on it.
func (f *fixture) connect(t *testing.T, opts mcpserver.Options) *mcp.ClientSession {
	t.Helper()
	opts.TenantID, opts.Memory = f.tenant.ID, f.svc
	srv, err := mcpserver.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out; it fails
// the test on a tool error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s(%v): tool error %s", name, args, text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: decode %s: %v", name, b, err)
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// exampleTurns returns the turns of the repository's example meeting
// (examples/meetings/launch-review.jsonl: Korean and English, about 11,000
// tokens, more than 70% of window).
func exampleTurns(t *testing.T) []qmsum.Turn {
	t.Helper()
	utts, err := qmsum.LoadJSONL("../../examples/meetings/launch-review.jsonl", "lr")
	if err != nil {
		t.Fatal(err)
	}
	turns := make([]qmsum.Turn, len(utts))
	for i, u := range utts {
		turns[i] = qmsum.Turn{Speaker: u.SpeakerName, Content: u.Text}
	}
	return turns
}

func TestMemoryToolsCompressALongConversation(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, mcpserver.Options{})
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	want := []string{"meeting_ask", "meeting_list", "meeting_topics", "memory_add_message", "memory_get_context",
		"memory_get_stats", "memory_list_conversations", "memory_search", "memory_should_compress", "memory_start_conversation"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	var added struct {
		ConversationID string `json:"conversation_id"`
		Seq            int    `json:"seq"`
		ShouldCompress bool   `json:"should_compress"`
	}
	total := 0
	for _, tr := range exampleTurns(t) {
		if strings.TrimSpace(tr.Content) == "" {
			continue
		}
		call(t, cs, "memory_add_message", map[string]any{"role": tr.Speaker, "content": tr.Content}, &added)
		total++
		if added.ShouldCompress {
			break
		}
	}
	if !added.ShouldCompress || added.Seq != total-1 {
		t.Fatalf("after %d messages: %+v", total, added)
	}
	call(t, cs, "memory_add_message", map[string]any{"role": "user", "content": "결론: 사내 해커톤 일정은 다음 주 화요일로 확정"}, &added)

	var should struct {
		ShouldCompress bool `json:"should_compress"`
		CurrentTokens  int  `json:"current_tokens"`
	}
	call(t, cs, "memory_should_compress", nil, &should)
	if !should.ShouldCompress || should.CurrentTokens <= window*7/10 {
		t.Fatalf("should_compress: %+v", should)
	}
	var got struct {
		Tokens      int    `json:"tokens"`
		Budget      int    `json:"budget"`
		Summaries   int    `json:"summaries"`
		Compression string `json:"compression"`
		Text        string `json:"text"`
	}
	call(t, cs, "memory_get_context", nil, &got)
	if got.Compression != "done" || got.Tokens > window/10 || got.Budget != window/10 || got.Summaries == 0 {
		t.Fatalf("context: %+v", got)
	}
	if !strings.Contains(got.Text, "해커톤 일정") {
		t.Errorf("the last message is not among the recent turns:\n%s", got.Text)
	}
	call(t, cs, "memory_should_compress", nil, &should)
	if should.ShouldCompress {
		t.Errorf("still should compress after compressing: %+v", should)
	}

	var stats convmemory.Stats
	call(t, cs, "memory_get_stats", map[string]any{"conversation_id": added.ConversationID}, &stats)
	if stats.Turns != total+1 || stats.Levels < 1 || stats.LiveTokens > window/10 || stats.CompressionRatio >= 0.2 {
		t.Errorf("stats: %+v", stats)
	}
	var found struct {
		Hits []convmemory.Hit `json:"hits"`
	}
	call(t, cs, "memory_search", map[string]any{"query": "해커톤 일정은", "k": 3}, &found)
	if len(found.Hits) == 0 || !strings.Contains(found.Hits[0].Text, "해커톤") {
		t.Errorf("search: %+v", found.Hits)
	}

	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.CurrentContextURI})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ConversationID string `json:"conversation_id"`
		Tokens         int    `json:"tokens"`
		Text           string `json:"text"`
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ConversationID != added.ConversationID || doc.Tokens != got.Tokens || doc.Text != got.Text {
		t.Errorf("resource %+v differs from memory_get_context", doc)
	}
}

func TestToolInputsAreValidated(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, mcpserver.Options{})
	tests := []struct {
		name     string
		tool     string
		args     map[string]any
		wantText string
	}{
		{"missing content", "memory_add_message", map[string]any{"role": "user"}, "content"},
		{"empty content", "memory_add_message", map[string]any{"role": "user", "content": " "}, "content is required"},
		{"wrong type", "memory_add_message", map[string]any{"role": "user", "content": 5}, "content"},
		{"unknown field", "memory_add_message", map[string]any{"role": "user", "content": "x", "color": "red"}, "color"},
		{"bad conversation id", "memory_get_stats", map[string]any{"conversation_id": "42"}, "not a UUID"},
		{"unknown conversation", "memory_get_stats", map[string]any{"conversation_id": "00000000-0000-0000-0000-000000000000"}, "not found"},
		{"negative budget", "memory_get_context", map[string]any{"budget_tokens": -1}, "budget_tokens"},
		{"k too large", "memory_search", map[string]any{"query": "x y", "k": 101}, "k must be"},
		{"no query", "memory_search", map[string]any{}, "query"},
		{"meetings not configured", "meeting_list", nil, "not available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatalf("protocol error %v, want a tool error", err)
			}
			if !res.IsError || !strings.Contains(text(res), tt.wantText) {
				t.Errorf("IsError %v, text %q; want an error mentioning %q", res.IsError, text(res), tt.wantText)
			}
		})
	}
	cs2, err := f.svc.List(context.Background(), f.tenant.ID, 10)
	if err != nil || len(cs2) != 0 {
		t.Errorf("rejected calls created conversations: %v %v", cs2, err)
	}
}
