package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/llm/openai"
	"github.com/mithub/mithub/pkg/meetingctx"
)

var _ meetingctx.Embedder = (*openai.Client)(nil)

type embedItem struct {
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

// embedServer answers each input "tN" with [N, 1, 0.5] and lists the data
// in reverse order; it records the batch sizes.
func embedServer(t *testing.T, sizes *[]int, mu *sync.Mutex) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" {
			t.Errorf("path %s", r.URL.Path)
		}
		var req struct {
			Model          string   `json:"model"`
			Input          []string `json:"input"`
			EncodingFormat string   `json:"encoding_format"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Error(err)
		}
		if req.Model != "test-embed" || req.EncodingFormat != "float" {
			t.Errorf("request %+v", req)
		}
		mu.Lock()
		*sizes = append(*sizes, len(req.Input))
		mu.Unlock()
		data := make([]embedItem, 0, len(req.Input))
		for i := len(req.Input) - 1; i >= 0; i-- {
			n, _ := strconv.Atoi(strings.TrimPrefix(req.Input[i], "t"))
			data = append(data, embedItem{Index: i, Embedding: []float32{float32(n), 1, 0.5}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data, "model": "test-embed", "usage": map[string]int{"prompt_tokens": 3}})
	}
}

func TestEmbedBatchesAndOrders(t *testing.T) {
	var (
		mu    sync.Mutex
		sizes []int
	)
	ts := newServer(t, embedServer(t, &sizes, &mu))
	c := newClient(t, ts)
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = fmt.Sprintf("t%d", i)
	}
	got, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sizes, []int{64, 64, 22}) {
		t.Errorf("batch sizes = %v, want [64 64 22]", sizes)
	}
	if len(got) != 150 {
		t.Fatalf("%d vectors, want 150", len(got))
	}
	for i, v := range got {
		if v[0] != float32(i) || len(v) != 3 {
			t.Fatalf("vector %d = %v", i, v)
		}
	}
	if c.Dimension() != 3 {
		t.Errorf("Dimension = %d", c.Dimension())
	}
}

func TestEmbedEmpty(t *testing.T) {
	var calls atomic.Int32
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) { calls.Add(1) })
	got, err := newClient(t, ts).Embed(context.Background(), nil)
	if got != nil || err != nil || calls.Load() != 0 {
		t.Errorf("Embed(nil) = %v, %v with %d calls", got, err, calls.Load())
	}
}

func TestEmbedBadVectors(t *testing.T) {
	tests := []struct {
		name string
		give string
	}{
		{"wrong dimension", `{"data":[{"index":0,"embedding":[1,2]}]}`},
		{"zero vector", `{"data":[{"index":0,"embedding":[0,0,0]}]}`},
		{"missing vector", `{"data":[]}`},
		{"index out of range", `{"data":[{"index":3,"embedding":[1,2,3]}]}`},
		{"not numbers", `{"data":[{"index":0,"embedding":{"a":1}}]}`},
		{"malformed", `{"data":[`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Write([]byte(tt.give))
			})
			got, err := newClient(t, ts).Embed(context.Background(), []string{"a"})
			if !errors.Is(err, llm.ErrBadResponse) || got != nil {
				t.Errorf("Embed = %v, %v; want ErrBadResponse", got, err)
			}
			if calls.Load() != 1 {
				t.Errorf("%d calls, want 1", calls.Load())
			}
		})
	}
}

func TestEmbedBase64(t *testing.T) {
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		// 1.0, 2.0, 0.5 as little-endian float32.
		w.Write([]byte(`{"data":[{"index":0,"embedding":"AACAPwAAAEAAAAA/"}]}`))
	})
	got, err := newClient(t, ts).Embed(context.Background(), []string{"a"})
	if err != nil || !reflect.DeepEqual(got, [][]float32{{1, 2, 0.5}}) {
		t.Errorf("Embed = %v, %v", got, err)
	}
}

func TestEmbedConfigErrors(t *testing.T) {
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) { t.Error("no request expected") })
	tests := []struct {
		name   string
		modify func(*openai.Config)
		give   []string
	}{
		{"no model", func(c *openai.Config) { c.EmbedModel = "" }, []string{"a"}},
		{"no dimension", func(c *openai.Config) { c.Dimension = 0 }, []string{"a"}},
		{"empty text", func(*openai.Config) {}, []string{"a", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newClient(t, ts, tt.modify).Embed(context.Background(), tt.give)
			if !errors.Is(err, llm.ErrPermanent) {
				t.Errorf("err = %v, want ErrPermanent", err)
			}
		})
	}
}

func TestEmbedRetries(t *testing.T) {
	var (
		mu       sync.Mutex
		sizes    []int
		attempts atomic.Int32
	)
	ok := embedServer(t, &sizes, &mu)
	ts := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if attempts.Add(1) == 1 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		ok(w, r)
	})
	got, err := newClient(t, ts).Embed(context.Background(), []string{"t7"})
	if err != nil || len(got) != 1 || got[0][0] != 7 || attempts.Load() != 2 {
		t.Errorf("Embed = %v, %v after %d attempts", got, err, attempts.Load())
	}
}
