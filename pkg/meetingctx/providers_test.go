package meetingctx_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/llm/openai"
	"github.com/mithub/mithub/pkg/llm/prompted"
	"github.com/mithub/mithub/pkg/meetingctx"
)

// flakyLLM is an OpenAI-compatible server that answers, in turn: 429,
// a malformed body, prose instead of JSON, a hang past the client's
// timeout, a 500, and finally a proper answer.
func flakyLLM(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var chats, embeds atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.HasSuffix(r.URL.Path, "/embeddings") {
			i := embeds.Add(1)
			var req struct {
				Input []string `json:"input"`
			}
			_ = json.Unmarshal(body, &req)
			if i%3 == 0 {
				http.Error(w, "overloaded", http.StatusServiceUnavailable)
				return
			}
			var data []map[string]any
			for k, s := range req.Input {
				v := make([]float32, 8)
				v[len(s)%8] = 1
				v[(len(s)/8)%8] += 0.5
				data = append(data, map[string]any{"index": k, "embedding": v})
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
			return
		}
		switch chats.Add(1) % 6 {
		case 1:
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
			return
		case 2:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"choices":[{"message":{"content":`)
			return
		case 3:
			reply(w, "Sure! The meeting covers several things, mostly budgets.")
			return
		case 4:
			<-r.Context().Done()
			return
		case 5:
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		// A real answer: one topic for the whole chunk, as the prompt's
		// turn lines show it.
		seqs := seqsIn(string(body))
		if len(seqs) == 0 {
			reply(w, `{"title":"Budget","summary":"They discussed the budget.","keywords":["budget"]}`)
			return
		}
		reply(w, fmt.Sprintf("```json\n{\"continue_to\": -1, \"topics\": [{\"start_seq\": %d, \"end_seq\": %d, \"title\": \"Budget\", \"summary\": \"They discussed the budget.\", \"keywords\": [\"budget\"]}]}\n```", seqs[0], seqs[len(seqs)-1]))
	}))
	t.Cleanup(srv.Close)
	return srv, &chats
}

func reply(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   map[string]int{"prompt_tokens": 100, "completion_tokens": 20},
	})
}

// seqsIn finds the "[seq]" turn markers of the chunk in a request body.
func seqsIn(body string) []int {
	var req struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	_ = json.Unmarshal([]byte(body), &req)
	var out []int
	for _, m := range req.Messages {
		for _, line := range strings.Split(m.Content, "\n") {
			var seq int
			if _, err := fmt.Sscanf(strings.TrimSpace(line), "[%d]", &seq); err == nil {
				out = append(out, seq)
			}
		}
	}
	return out
}

// With a provider that fails in every way an HTTP LLM can, every turn
// still ends up in exactly one topic and nothing stores a zero vector.
func TestEngineWithFlakyOpenAIProviderLosesNoChunk(t *testing.T) {
	srv, calls := flakyLLM(t)
	client, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "test-model", EmbedModel: "test-embed", Dimension: 8,
		Timeout: 200 * time.Millisecond, MaxRetries: 2, BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	store := &memStore{}
	eng := meetingctx.NewEngine(meetingctx.EngineDeps{
		Segmenter: prompted.NewSegmenter(client, prompted.Config{}), Summarizer: prompted.NewSummarizer(client, prompted.Config{}),
		Embedder: client, Store: store, MaxConcurrentLLM: 2,
	})
	t.Cleanup(func() { eng.Close(5 * time.Second) })
	m := meetingctx.New("t", "m", meetingctx.Config{}, eng)
	all := meetingTurns("m", 0, 110, func(int) bool { return false })
	for i := 0; i < len(all); i += 10 {
		if _, err := m.Apply(all[i : i+10]); err != nil {
			t.Fatal(err)
		}
	}
	m.Flush()
	if !m.WaitL1(t.Context(), 30*time.Second) {
		t.Fatal("L1 did not settle")
	}
	s := m.Snapshot()
	checkTiling(t, s.Topics, 109)
	if len(s.Pending) != 0 || store.cursor["m"] != 109 {
		t.Fatalf("%d pending, saved up to %d", len(s.Pending), store.cursor["m"])
	}
	for _, tp := range store.saved["m"] {
		if tp.Embedding != nil && zeroVec(tp.Embedding) {
			t.Fatalf("topic %d saved with a zero vector", tp.Seq)
		}
	}
	if calls.Load() < 6 {
		t.Fatalf("only %d chat calls; the failure modes were not exercised", calls.Load())
	}
	answered := 0
	for _, tp := range s.Topics {
		if tp.Title == "Budget" {
			answered++
		}
	}
	if answered == 0 {
		t.Fatal("no chunk was segmented by the model; the success path was not exercised")
	}
}

func zeroVec(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
