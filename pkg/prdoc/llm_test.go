package prdoc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/llm/openai"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/tokens"
)

// chatServer is an OpenAI-compatible server whose answer is computed from
// the request's user message.
type chatServer struct {
	mu      sync.Mutex
	users   []string // user messages, in arrival order
	systems []string // system messages, in arrival order
	sizes   []int    // prompt tokens of each request (system + user)
}

func (cs *chatServer) start(t *testing.T, counter tokens.Counter, answer func(user string) (int, string)) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		cs.mu.Lock()
		cs.users = append(cs.users, req.Messages[1].Content)
		cs.systems = append(cs.systems, req.Messages[0].Content)
		cs.sizes = append(cs.sizes, counter.Count(req.Messages[0].Content)+counter.Count(req.Messages[1].Content))
		cs.mu.Unlock()
		status, content := answer(req.Messages[1].Content)
		if status != http.StatusOK {
			w.WriteHeader(status)
			fmt.Fprint(w, `{"error":{"message":"rejected"}}`)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"model":   "test-model",
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 10},
		})
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/v1"
}

// seqsOf returns the [seq] numbers of the transcript lines in a prompt.
func seqsOf(user string) []int {
	var out []int
	for _, line := range strings.Split(user, "\n") {
		if end := strings.IndexByte(line, ']'); strings.HasPrefix(line, "[") && end > 0 {
			if n, err := strconv.Atoi(line[1:end]); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func newLLM(t *testing.T, url string, counter tokens.Counter, window int) *prdoc.LLM {
	t.Helper()
	c, err := openai.New(openai.Config{BaseURL: url, Model: "test-model", MaxRetries: -1, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return prdoc.NewLLM(c, counter, prdoc.LLMConfig{Window: window, MaxTokens: 200, Concurrency: 3})
}

func longMeeting(n int) prdoc.Input {
	var lines []string
	for i := range n {
		switch {
		case i%2 == 0:
			lines = append(lines, fmt.Sprintf("Alice: Item %d: the staging cluster needs more memory before the load test, and the dashboards should show latency per endpoint.", i))
		default:
			lines = append(lines, fmt.Sprintf("민수: 항목 %d: 부하 테스트 전에 스테이징 클러스터 메모리를 늘리고 엔드포인트별 지연 시간을 대시보드에 표시해야 합니다.", i))
		}
	}
	return prdoc.Input{MeetingID: "m-1", MeetingTitle: "Infra sync", Date: wednesday, Turns: turns(lines...),
		Topics: []prdoc.Topic{{ID: "t-1", Title: "Load test", StartSeq: 0, EndSeq: 19}, {ID: "t-2", Title: "Dashboards", StartSeq: 20, EndSeq: 39}}}
}

// The meeting is mapped in parts that each fit the budget and together
// cover every turn once; the answers (fenced, lenient JSON) are reduced
// into one document with owners matched to speakers.
func TestLLMMapReduceWithinBudget(t *testing.T) {
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	var cs chatServer
	url := cs.start(t, counter, func(user string) (int, string) {
		seq := seqsOf(user)[0]
		return http.StatusOK, fmt.Sprintf("Here you go:\n```json\n{\"decisions\": [{\"text\": \"Add memory to staging (part %d)\", \"speaker\": \"Alice\", \"seq\": \"%d\"},],\n"+
			"\"action_items\": [{\"text\": \"대시보드 지연 시간 추가 (%d)\", \"owner\": \"민수 님\", \"due\": \"by Friday\", \"seq\": %d}, "+
			"{\"text\": \"Resize the cluster\", \"owner\": \"민수\", \"seq\": %d}],\n\"open_questions\": []}\n```\nAnything else?", seq, seq, seq, seq, seq)
	})
	const window = 1500
	x := newLLM(t, url, counter, window)
	in := longMeeting(40)
	d, err := x.Extract(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	budget := tokens.NewBudget(window, 200).Available()
	if len(cs.users) < 2 {
		t.Fatalf("%d map requests, want the meeting split into several", len(cs.users))
	}
	seen := map[int]int{}
	for i, u := range cs.users {
		if cs.sizes[i] > budget {
			t.Errorf("request %d has %d prompt tokens, budget %d", i, cs.sizes[i], budget)
		}
		for _, s := range seqsOf(u) {
			seen[s]++
		}
	}
	for s := range 40 {
		if seen[s] != 1 {
			t.Errorf("turn %d sent %d times, want once", s, seen[s])
		}
	}
	if len(d.Decisions) != len(cs.users) || d.Provider != prdoc.ProviderOpenAI {
		t.Errorf("decisions = %d (provider %s), want one per part", len(d.Decisions), d.Provider)
	}
	// "Resize the cluster" repeats in every part: it is kept once.
	resize := 0
	for _, a := range d.ActionItems {
		if a.Text == "Resize the cluster" {
			resize++
		}
		if strings.HasPrefix(a.Text, "대시보드") && (a.Owner != "민수" || a.DueDate != "2026-01-09") {
			t.Errorf("action item %+v: want owner 민수 (matched from 민수 님) due 2026-01-09", a)
		}
	}
	if resize != 1 {
		t.Errorf("repeated action item kept %d times, want 1", resize)
	}
	for i := 1; i < len(d.Decisions); i++ {
		if d.Decisions[i].Seq < d.Decisions[i-1].Seq {
			t.Errorf("decisions out of meeting order: %+v", d.Decisions)
		}
	}
}

// A part whose answer is not JSON falls back to the cue rules; a rejected
// request fails the extraction as permanent; a window too small for the
// instructions is ErrBudget.
func TestLLMFallbacksAndErrors(t *testing.T) {
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	in := prdoc.Input{Date: wednesday, Turns: turns(
		"Alice: We decided to move the launch to March.",
		"민수: 제가 금요일까지 공지 초안을 쓰겠습니다.",
	)}

	var prose chatServer
	d, err := newLLM(t, prose.start(t, counter, func(string) (int, string) {
		return http.StatusOK, "I cannot help with that."
	}), counter, 4000).Extract(context.Background(), in)
	if err != nil || len(d.Decisions) != 1 || len(d.ActionItems) != 1 || d.ActionItems[0].Owner != "민수" {
		t.Errorf("fallback document = %+v, %v; want the cue rules' items", d, err)
	}

	var rejecting chatServer
	_, err = newLLM(t, rejecting.start(t, counter, func(string) (int, string) {
		return http.StatusBadRequest, ""
	}), counter, 4000).Extract(context.Background(), in)
	if !errors.Is(err, llm.ErrPermanent) {
		t.Errorf("rejected request = %v, want llm.ErrPermanent", err)
	}

	var unused chatServer
	_, err = newLLM(t, unused.start(t, counter, func(string) (int, string) { return http.StatusOK, "{}" }), counter, 300).
		Extract(context.Background(), in)
	if !errors.Is(err, prdoc.ErrBudget) || len(unused.users) != 0 {
		t.Errorf("tiny window = %v after %d requests, want ErrBudget before any", err, len(unused.users))
	}
}
