package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/llm/openai"
)

const testKey = "sk-test-SECRET-0123456789"

// newServer serves h under /v1 and fails the test on a request without
// the bearer key.
func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
			t.Errorf("Authorization = %q", got)
		}
		h(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// newClient returns a client for ts with a tiny backoff.
func newClient(t *testing.T, ts *httptest.Server, modify ...func(*openai.Config)) *openai.Client {
	t.Helper()
	cfg := openai.Config{
		BaseURL:     ts.URL + "/v1",
		APIKey:      testKey,
		Model:       "test-model",
		EmbedModel:  "test-embed",
		Dimension:   3,
		Timeout:     5 * time.Second,
		MaxRetries:  3,
		BackoffBase: time.Millisecond,
		BackoffMax:  2 * time.Millisecond,
	}
	for _, m := range modify {
		m(&cfg)
	}
	c, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waits records the waits between attempts instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return nil
}

func (w *waits) get() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

func readBody(t *testing.T, r *http.Request) map[string]any {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("read body: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Errorf("request body %q: %v", b, err)
	}
	return m
}

func chatJSON(content string) string {
	c, _ := json.Marshal(content)
	return fmt.Sprintf(`{"id":"x","model":"test-model-0613","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`, c)
}

func deltaEvent(s string) string {
	c, _ := json.Marshal(s)
	return fmt.Sprintf("data: {\"model\":\"test-model-0613\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", c)
}

func writeEvents(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		io.WriteString(w, e)
		w.(http.Flusher).Flush()
	}
}

func userMsg(s string) []llm.Message { return []llm.Message{{Role: llm.RoleUser, Content: s}} }

func assertNoKey(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), testKey) {
		t.Errorf("error contains the API key: %v", err)
	}
}
