package openai_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/llm/openai"
)

func collect(deltas *[]string) func(string) error {
	return func(s string) error {
		*deltas = append(*deltas, s)
		return nil
	}
}

func TestChatStream(t *testing.T) {
	var body map[string]any
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		body = readBody(t, r)
		if got := r.Header.Get("Accept"); got != "text/event-stream" {
			t.Errorf("Accept = %q", got)
		}
		writeEvents(w,
			": keep-alive comment\n\n",
			"data: {\"model\":\"m-1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}\n\n",
			deltaEvent("회의"),
			// One event split over two data lines, with CRLF line ends.
			"data: {\"choices\":[{\"index\":0,\r\ndata: \"delta\":{\"content\":\" 요약\"}}]}\r\n\r\n",
			"event: message\nid: 7\n"+deltaEvent(" done"),
			"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":4}}\n\n",
			"data: [DONE]\n\n",
		)
	})
	var reported atomic.Int32
	c := newClient(t, ts, func(cfg *openai.Config) {
		cfg.OnUsage = func(model string, n int) {
			if model == "test-model" {
				reported.Store(int32(n))
			}
		}
	})

	var deltas []string
	got, err := c.ChatStream(context.Background(), llm.ChatRequest{Messages: userMsg("x"), JSON: true}, collect(&deltas))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"회의", " 요약", " done"}; !reflect.DeepEqual(deltas, want) {
		t.Errorf("deltas = %q, want %q", deltas, want)
	}
	want := llm.ChatResponse{Content: "회의 요약 done", Usage: llm.Usage{PromptTokens: 21, CompletionTokens: 4}, Model: "test-model-0613", FinishReason: "stop"}
	if got != want {
		t.Errorf("ChatStream = %+v, want %+v", got, want)
	}
	if body["stream"] != true || !reflect.DeepEqual(body["stream_options"], map[string]any{"include_usage": true}) {
		t.Errorf("body = %v", body)
	}
	if !reflect.DeepEqual(body["response_format"], map[string]any{"type": "json_object"}) {
		t.Errorf("response_format = %v", body["response_format"])
	}
	if reported.Load() != 21 {
		t.Errorf("OnUsage got %d, want 21", reported.Load())
	}
}

func TestChatStreamFinishWithoutDone(t *testing.T) {
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeEvents(w, deltaEvent("hi"), `data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`)
	})
	var deltas []string
	got, err := newClient(t, ts).ChatStream(context.Background(), llm.ChatRequest{Messages: userMsg("x")}, collect(&deltas))
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != "hi" || got.FinishReason != "length" {
		t.Errorf("got %+v", got)
	}
}

func TestChatStreamCutAfterDeltas(t *testing.T) {
	var attempts atomic.Int32
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		writeEvents(w, deltaEvent("one"), deltaEvent(" two"))
	})
	var deltas []string
	got, err := newClient(t, ts).ChatStream(context.Background(), llm.ChatRequest{Messages: userMsg("x")}, collect(&deltas))
	if !errors.Is(err, llm.ErrBadResponse) {
		t.Fatalf("err = %v, want ErrBadResponse", err)
	}
	if n := attempts.Load(); n != 1 {
		t.Errorf("attempts = %d, want 1: deltas were delivered", n)
	}
	if len(deltas) != 2 || got.Content != "one two" {
		t.Errorf("deltas %q, content %q", deltas, got.Content)
	}
}

func TestChatStreamConnectionDropAfterDeltas(t *testing.T) {
	var attempts atomic.Int32
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		writeEvents(w, deltaEvent("one"))
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	})
	var deltas []string
	_, err := newClient(t, ts).ChatStream(context.Background(), llm.ChatRequest{Messages: userMsg("x")}, collect(&deltas))
	if !errors.Is(err, llm.ErrBadResponse) {
		t.Fatalf("err = %v, want ErrBadResponse", err)
	}
	if n := attempts.Load(); n != 1 {
		t.Errorf("attempts = %d, want 1", n)
	}
}

func TestChatStreamCutBeforeDeltas(t *testing.T) {
	var attempts atomic.Int32
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if attempts.Add(1) == 1 {
			writeEvents(w, `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`+"\n\n")
			return
		}
		writeEvents(w, deltaEvent("again"), "data: [DONE]\n\n")
	})
	c := newClient(t, ts)
	var w waits
	openai.SetSleep(c, w.sleep)
	var deltas []string
	got, err := c.ChatStream(context.Background(), llm.ChatRequest{Messages: userMsg("x")}, collect(&deltas))
	if err != nil {
		t.Fatal(err)
	}
	if n := attempts.Load(); n != 2 {
		t.Errorf("attempts = %d, want 2", n)
	}
	if got.Content != "again" || !reflect.DeepEqual(deltas, []string{"again"}) {
		t.Errorf("content %q, deltas %q", got.Content, deltas)
	}
}

func TestChatStreamConsumerError(t *testing.T) {
	var attempts atomic.Int32
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		writeEvents(w, deltaEvent("a"), deltaEvent("b"), "data: [DONE]\n\n")
	})
	stop := errors.New("listener left")
	_, err := newClient(t, ts).ChatStream(context.Background(), llm.ChatRequest{Messages: userMsg("x")}, func(string) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the consumer's error", err)
	}
	if n := attempts.Load(); n != 1 {
		t.Errorf("attempts = %d, want 1", n)
	}
}

func TestChatStreamErrorStatus(t *testing.T) {
	var attempts atomic.Int32
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if attempts.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		writeEvents(w, deltaEvent("ok"), "data: [DONE]\n\n")
	})
	var deltas []string
	got, err := newClient(t, ts).ChatStream(context.Background(), llm.ChatRequest{Messages: userMsg("x")}, collect(&deltas))
	if err != nil || got.Content != "ok" || attempts.Load() != 2 {
		t.Errorf("got %q, %v after %d attempts", got.Content, err, attempts.Load())
	}
}

func TestChatStreamIdleTimeout(t *testing.T) {
	var attempts atomic.Int32
	release := make(chan struct{})
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		io.Copy(io.Discard, r.Body)
		writeEvents(w, ": connected\n\n")
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	c := newClient(t, ts, func(cfg *openai.Config) {
		cfg.Timeout = 50 * time.Millisecond
		cfg.MaxRetries = 1
	})
	_, err := c.ChatStream(context.Background(), llm.ChatRequest{Messages: userMsg("x")}, func(string) error { return nil })
	if !errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if n := attempts.Load(); n != 2 {
		t.Errorf("attempts = %d, want 2", n)
	}
}

func TestChatStreamUnstreamedJSON(t *testing.T) {
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write([]byte(chatJSON("whole")))
	})
	var deltas []string
	got, err := newClient(t, ts).ChatStream(context.Background(), llm.ChatRequest{Messages: userMsg("x")}, collect(&deltas))
	if err != nil || got.Content != "whole" || !reflect.DeepEqual(deltas, []string{"whole"}) {
		t.Errorf("got %+v, deltas %q, err %v", got, deltas, err)
	}
}

func TestChatStreamBadChunk(t *testing.T) {
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeEvents(w, "data: {not json\n\n")
	})
	_, err := newClient(t, ts).ChatStream(context.Background(), llm.ChatRequest{Messages: userMsg("x")}, func(string) error { return nil })
	if !errors.Is(err, llm.ErrBadResponse) || !strings.Contains(err.Error(), "chunk") {
		t.Errorf("err = %v, want ErrBadResponse", err)
	}
}
