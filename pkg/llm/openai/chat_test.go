package openai_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/llm/openai"
)

func TestChat(t *testing.T) {
	var body map[string]any
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		body = readBody(t, r)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(chatJSON("안녕하세요, hello")))
	})
	var mu sync.Mutex
	var usage []string
	c := newClient(t, ts, func(cfg *openai.Config) {
		cfg.OnUsage = func(model string, prompt int) {
			mu.Lock()
			defer mu.Unlock()
			usage = append(usage, model, string(rune('0'+prompt/10)), string(rune('0'+prompt%10)))
		}
	})

	got, err := c.Chat(context.Background(), llm.ChatRequest{
		Messages:    []llm.Message{{Role: llm.RoleSystem, Content: "be brief"}, {Role: llm.RoleUser, Content: "hi"}},
		MaxTokens:   50,
		Temperature: 0.2,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.ChatResponse{
		Content:      "안녕하세요, hello",
		Usage:        llm.Usage{PromptTokens: 12, CompletionTokens: 3},
		Model:        "test-model-0613",
		FinishReason: "stop",
	}
	if got != want {
		t.Errorf("Chat = %+v, want %+v", got, want)
	}
	if body["model"] != "test-model" || body["max_tokens"] != 50.0 || body["temperature"] != 0.2 {
		t.Errorf("body = %v", body)
	}
	if _, ok := body["response_format"]; ok {
		t.Errorf("response_format sent without JSON mode: %v", body)
	}
	if _, ok := body["stream"]; ok {
		t.Errorf("stream sent by Chat: %v", body)
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 2 || !reflect.DeepEqual(msgs[0], map[string]any{"role": "system", "content": "be brief"}) {
		t.Errorf("messages = %v", body["messages"])
	}
	if !reflect.DeepEqual(usage, []string{"test-model", "1", "2"}) {
		t.Errorf("OnUsage calls = %v, want the request's model and 12", usage)
	}
}

func TestChatJSONMode(t *testing.T) {
	var raw atomic.Value
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		raw.Store(readBody(t, r))
		w.Write([]byte(chatJSON(`{"ok":true}`)))
	})
	c := newClient(t, ts)
	if _, err := c.Chat(context.Background(), llm.ChatRequest{Model: "other", Messages: userMsg("x"), JSON: true}); err != nil {
		t.Fatal(err)
	}
	body := raw.Load().(map[string]any)
	if !reflect.DeepEqual(body["response_format"], map[string]any{"type": "json_object"}) {
		t.Errorf("response_format = %v", body["response_format"])
	}
	if body["model"] != "other" {
		t.Errorf("model = %v, want the request's", body["model"])
	}
}

func TestChatMalformedBody(t *testing.T) {
	var attempts atomic.Int32
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices":[{"message":{"content":"tru`))
	})
	c := newClient(t, ts)
	_, err := c.Chat(context.Background(), llm.ChatRequest{Messages: userMsg("x")})
	if !errors.Is(err, llm.ErrBadResponse) {
		t.Fatalf("err = %v, want ErrBadResponse", err)
	}
	if n := attempts.Load(); n != 1 {
		t.Errorf("attempts = %d, want 1 (a malformed body is not retried)", n)
	}
}

func TestChatNoChoices(t *testing.T) {
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"choices":[]}`))
	})
	_, err := newClient(t, ts).Chat(context.Background(), llm.ChatRequest{Messages: userMsg("x")})
	if !errors.Is(err, llm.ErrBadResponse) {
		t.Fatalf("err = %v, want ErrBadResponse", err)
	}
}

func TestChatRetryAfter(t *testing.T) {
	var attempts atomic.Int32
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if attempts.Add(1) == 1 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`))
			return
		}
		w.Write([]byte(chatJSON("ok")))
	})
	c := newClient(t, ts)
	var w waits
	openai.SetSleep(c, w.sleep)

	got, err := c.Chat(context.Background(), llm.ChatRequest{Messages: userMsg("x")})
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != "ok" || attempts.Load() != 2 {
		t.Errorf("content %q after %d attempts, want ok after 2", got.Content, attempts.Load())
	}
	if d := w.get(); !reflect.DeepEqual(d, []time.Duration{2 * time.Second}) {
		t.Errorf("waits = %v, want the Retry-After of 2s", d)
	}
}

func TestChatRetriesExhausted(t *testing.T) {
	var attempts atomic.Int32
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusInternalServerError)
	})
	c := newClient(t, ts, func(cfg *openai.Config) { cfg.MaxRetries = 3 })
	var w waits
	openai.SetSleep(c, w.sleep)

	_, err := c.Chat(context.Background(), llm.ChatRequest{Messages: userMsg("x")})
	if !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if n := attempts.Load(); n != 4 {
		t.Errorf("attempts = %d, want 1 + MaxRetries = 4", n)
	}
	for i, d := range w.get() {
		if ceiling := time.Millisecond << i; d < 0 || d > min(ceiling, 2*time.Millisecond) {
			t.Errorf("wait %d = %v, outside the full-jitter range", i, d)
		}
	}
	if ae, ok := errors.AsType[*openai.APIError](err); !ok || ae.StatusCode != 500 || ae.Message != "overloaded" {
		t.Errorf("APIError = %+v", ae)
	}
	if !strings.Contains(err.Error(), "after 4 attempts") {
		t.Errorf("err = %v, want the attempt count", err)
	}
}

func TestChatStatusCategories(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		want     error
		attempts int32
	}{
		{"bad request", 400, `{"error":{"message":"bad"}}`, llm.ErrPermanent, 1},
		{"unauthorized", 401, `{"error":"nope"}`, llm.ErrPermanent, 1},
		{"not found", 404, `not here`, llm.ErrPermanent, 1},
		{"request timeout", 408, ``, llm.ErrTimeout, 3},
		{"rate limited", 429, `{}`, llm.ErrRateLimited, 3},
		{"quota", 429, `{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}`, llm.ErrPermanent, 1},
		{"bad gateway", 502, ``, llm.ErrUnavailable, 3},
		{"unavailable", 503, ``, llm.ErrUnavailable, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var attempts atomic.Int32
			ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				attempts.Add(1)
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			})
			c := newClient(t, ts, func(cfg *openai.Config) { cfg.MaxRetries = 2 })
			_, err := c.Chat(context.Background(), llm.ChatRequest{Messages: userMsg("x")})
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			if n := attempts.Load(); n != tt.attempts {
				t.Errorf("attempts = %d, want %d", n, tt.attempts)
			}
		})
	}
}

func TestChatAttemptTimeout(t *testing.T) {
	var attempts atomic.Int32
	release := make(chan struct{})
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		io.Copy(io.Discard, r.Body) // the server notices a closed connection only once the body is read
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	c := newClient(t, ts, func(cfg *openai.Config) {
		cfg.Timeout = 50 * time.Millisecond
		cfg.MaxRetries = 2
	})

	_, err := c.Chat(context.Background(), llm.ChatRequest{Messages: userMsg("x")})
	if !errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if n := attempts.Load(); n != 3 {
		t.Errorf("attempts = %d, want 3", n)
	}
}

func TestChatCallerCancel(t *testing.T) {
	var attempts atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		io.Copy(io.Discard, r.Body)
		cancel()
		<-r.Context().Done()
	})
	c := newClient(t, ts)
	_, err := c.Chat(ctx, llm.ChatRequest{Messages: userMsg("x")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := attempts.Load(); n != 1 {
		t.Errorf("attempts = %d, want 1", n)
	}
}

func TestChatConnectionRefused(t *testing.T) {
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {})
	c := newClient(t, ts, func(cfg *openai.Config) { cfg.MaxRetries = 1 })
	ts.Close()
	_, err := c.Chat(context.Background(), llm.ChatRequest{Messages: userMsg("x")})
	if !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	assertNoKey(t, err)
}

func TestChatRequestErrors(t *testing.T) {
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		t.Error("no request expected")
	})
	c := newClient(t, ts, func(cfg *openai.Config) { cfg.Model = "" })
	if _, err := c.Chat(context.Background(), llm.ChatRequest{Messages: userMsg("x")}); !errors.Is(err, llm.ErrPermanent) {
		t.Errorf("no model: err = %v, want ErrPermanent", err)
	}
	if _, err := c.Chat(context.Background(), llm.ChatRequest{Model: "m"}); !errors.Is(err, llm.ErrPermanent) {
		t.Errorf("no messages: err = %v, want ErrPermanent", err)
	}
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + testKey + `.","type":"invalid_request_error","code":"invalid_api_key"}}`))
	})
	c := newClient(t, ts)
	_, err := c.Chat(context.Background(), llm.ChatRequest{Messages: userMsg("x")})
	if !errors.Is(err, llm.ErrPermanent) {
		t.Fatalf("err = %v, want ErrPermanent", err)
	}
	assertNoKey(t, err)
	_, err = c.ChatStream(context.Background(), llm.ChatRequest{Messages: userMsg("x")}, func(string) error { return nil })
	assertNoKey(t, err)
	_, err = c.Embed(context.Background(), []string{"a"})
	assertNoKey(t, err)

	cfg := openai.Config{BaseURL: "http://127.0.0.1/v1", APIKey: testKey}
	for _, s := range []string{cfg.String(), cfg.LogValue().String()} {
		if strings.Contains(s, testKey) {
			t.Errorf("config description contains the key: %s", s)
		}
	}
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name string
		give openai.Config
	}{
		{"no base URL", openai.Config{}},
		{"not http", openai.Config{BaseURL: "ftp://x/v1"}},
		{"no host", openai.Config{BaseURL: "http:///v1"}},
		{"negative timeout", openai.Config{BaseURL: "http://x/v1", Timeout: -1}},
		{"backoff max below base", openai.Config{BaseURL: "http://x/v1", BackoffBase: time.Second, BackoffMax: time.Millisecond}},
		{"negative dimension", openai.Config{BaseURL: "http://x/v1", Dimension: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := openai.New(tt.give); err == nil {
				t.Error("New accepted an invalid config")
			}
		})
	}
}
