package fakellm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/llm/openai"
)

func newClient(t *testing.T, url string, timeout time.Duration) *openai.Client {
	t.Helper()
	c, err := openai.New(openai.Config{BaseURL: url + "/v1", Model: "fake", Timeout: timeout, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The real OpenAI client reads ok answers, plain and streamed, and fails
// cleanly on every other mode.
func TestModesAgainstTheOpenAIClient(t *testing.T) {
	s := New(ModeOK, 10*time.Millisecond)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	c := newClient(t, srv.URL, 300*time.Millisecond)
	ctx := context.Background()
	req := llm.ChatRequest{Messages: []llm.Message{{Role: llm.RoleUser, Content: "회의에서 무엇을 결정했나요?"}}}

	res, err := c.Chat(ctx, req)
	if err != nil || !strings.Contains(res.Content, "[1]") {
		t.Fatalf("ok mode: %q, %v", res.Content, err)
	}
	var streamed strings.Builder
	res, err = c.ChatStream(ctx, req, func(d string) error { streamed.WriteString(d); return nil })
	if err != nil || streamed.String() != res.Content || res.Content == "" {
		t.Fatalf("ok stream: %q vs %q, %v", streamed.String(), res.Content, err)
	}
	jreq := req
	jreq.JSON = true
	if res, err = c.Chat(ctx, jreq); err != nil || !strings.HasPrefix(res.Content, "{") {
		t.Fatalf("json mode: %q, %v", res.Content, err)
	}

	for _, m := range []Mode{ModeTimeout, ModeError} {
		s.SetMode(m)
		if _, err := c.Chat(ctx, req); err == nil {
			t.Fatalf("mode %s: no error", m)
		}
	}
	s.SetMode(ModeGarbage)
	for range garbageBodies {
		// Every garbage body is either an error or an answer that is not
		// the ok content; none hangs or panics.
		if res, err := c.Chat(ctx, req); err == nil && strings.Contains(res.Content, "[1]") {
			t.Fatalf("garbage mode answered like ok mode: %q", res.Content)
		}
	}
	s.SetMode(ModeOK)
	if _, err := c.Chat(ctx, req); err != nil {
		t.Fatalf("back to ok: %v", err)
	}
}

func TestPutMode(t *testing.T) {
	s := New(ModeOK, 0)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	tests := []struct {
		give       string
		wantStatus int
		wantMode   Mode
	}{
		{"garbage", http.StatusOK, ModeGarbage},
		{" Timeout\n", http.StatusOK, ModeTimeout},
		{"sometimes", http.StatusBadRequest, ModeTimeout},
		{"ok", http.StatusOK, ModeOK},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodPut, srv.URL+"/mode", strings.NewReader(tt.give))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.wantStatus || s.Mode() != tt.wantMode {
			t.Errorf("PUT %q: status %d mode %s, want %d %s", tt.give, resp.StatusCode, s.Mode(), tt.wantStatus, tt.wantMode)
		}
	}
}
