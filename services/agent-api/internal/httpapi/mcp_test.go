package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds an API key to every request.
type bearer struct {
	key  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.base.RoundTrip(r)
}

// mcpSession connects the Go SDK client to /mcp with key.
func (h *harness) mcpSession(key string) *mcp.ClientSession {
	h.t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: h.base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: key, base: http.DefaultTransport}}, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "httpapi-test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		h.t.Fatalf("connect to /mcp: %v", err)
	}
	h.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decode %s: %v", name, b, err)
		}
	}
	return res
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestMCPOverHTTPServesMemoryAndMeetingTools(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	h.post(key, m.ID, utterances("seg", 0, 30))
	cs := h.mcpSession(key)

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"memory_should_compress", "memory_add_message", "memory_get_context", "memory_search",
		"memory_get_stats", "memory_start_conversation", "memory_list_conversations", "meeting_list", "meeting_topics", "meeting_ask"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}

	var list struct {
		Meetings []struct {
			ID       string `json:"id"`
			Counters struct {
				Utterances int `json:"utterances"`
			} `json:"counters"`
		} `json:"meetings"`
	}
	callTool(t, cs, "meeting_list", nil, &list)
	if len(list.Meetings) != 1 || list.Meetings[0].ID != m.ID || list.Meetings[0].Counters.Utterances != 30 {
		t.Fatalf("meeting_list: %+v", list)
	}
	var topics struct {
		MeetingID string `json:"meeting_id"`
	}
	if res := callTool(t, cs, "meeting_topics", map[string]any{"meeting_id": m.ID}, &topics); res.IsError || topics.MeetingID != m.ID {
		t.Fatalf("meeting_topics: %s", toolText(res))
	}
	var ans struct {
		Answer    string `json:"answer"`
		Provider  string `json:"provider"`
		Citations []struct {
			Text string `json:"text"`
		} `json:"citations"`
	}
	res := callTool(t, cs, "meeting_ask", map[string]any{"meeting_id": m.ID, "question": "로드맵은 어떻게 정리하기로 했나요?"}, &ans)
	if res.IsError || ans.Answer == "" || ans.Provider == "" {
		t.Fatalf("meeting_ask: %s", toolText(res))
	}

	var added struct {
		ConversationID string `json:"conversation_id"`
		Seq            int    `json:"seq"`
	}
	callTool(t, cs, "memory_add_message", map[string]any{"role": "user", "content": "릴리스 노트는 금요일까지 작성"}, &added)
	callTool(t, cs, "memory_add_message", map[string]any{"conversation_id": added.ConversationID, "role": "assistant",
		"content": "Noted: release notes by Friday."}, &added)
	if added.Seq != 1 {
		t.Fatalf("second message seq %d", added.Seq)
	}
	var stats struct {
		Turns     int `json:"turns"`
		RawTokens int `json:"raw_tokens"`
	}
	callTool(t, cs, "memory_get_stats", map[string]any{"conversation_id": added.ConversationID}, &stats)
	if stats.Turns != 2 || stats.RawTokens == 0 {
		t.Errorf("stats: %+v", stats)
	}
	var found struct {
		Hits []struct {
			Text string `json:"text"`
		} `json:"hits"`
	}
	callTool(t, cs, "memory_search", map[string]any{"query": "릴리스 노트"}, &found)
	if len(found.Hits) == 0 || !strings.Contains(found.Hits[0].Text, "금요일") {
		t.Errorf("search: %+v", found)
	}
	var ctxDoc struct {
		RecentTurns int    `json:"recent_turns"`
		Text        string `json:"text"`
	}
	callTool(t, cs, "memory_get_context", map[string]any{"conversation_id": added.ConversationID}, &ctxDoc)
	if ctxDoc.RecentTurns != 2 || !strings.Contains(ctxDoc.Text, "Friday") {
		t.Errorf("context: %+v", ctxDoc)
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "memory://context/current"})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "Friday") {
		t.Errorf("resource: %v %+v", err, rr)
	}

	// Another tenant sees neither the meeting nor the conversation.
	other := h.mcpSession(h.key("globex"))
	if res := callTool(t, other, "meeting_topics", map[string]any{"meeting_id": m.ID}, nil); !res.IsError {
		t.Errorf("other tenant read the topics: %s", toolText(res))
	}
	if res := callTool(t, other, "memory_get_stats", map[string]any{"conversation_id": added.ConversationID}, nil); !res.IsError ||
		!strings.Contains(toolText(res), "not found") {
		t.Errorf("other tenant read the stats: %s", toolText(res))
	}
	if res := callTool(t, cs, "meeting_ask", map[string]any{"meeting_id": m.ID, "mode": "shout"}, nil); !res.IsError ||
		!strings.Contains(toolText(res), "mode must be") {
		t.Errorf("bad mode: %s", toolText(res))
	}
}

func TestMCPNeedsAKey(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	for _, key := range []string{"", "mh_wrong"} {
		r := h.do(http.MethodPost, "/mcp", key, body, "Accept", "application/json, text/event-stream")
		if r.status != http.StatusUnauthorized || !strings.Contains(string(r.body), "unauthenticated") {
			t.Errorf("key %q: %d %s", key, r.status, r.body)
		}
	}
}
