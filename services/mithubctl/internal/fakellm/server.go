package fakellm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Mode is how the server answers.
type Mode string

// Modes.
const (
	ModeOK      Mode = "ok"
	ModeSlow    Mode = "slow"
	ModeTimeout Mode = "timeout"
	ModeGarbage Mode = "garbage"
	ModeError   Mode = "error"
)

// Modes lists every mode.
var Modes = []Mode{ModeOK, ModeSlow, ModeTimeout, ModeGarbage, ModeError}

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.TrimSpace(strings.ToLower(s)))
	if !slices.Contains(Modes, m) {
		return "", fmt.Errorf("unknown mode %q (want one of ok, slow, timeout, garbage, error)", s)
	}
	return m, nil
}

// maxHold bounds how long timeout mode holds a request whose client stays.
const maxHold = 5 * time.Minute

// Server is the fake chat server. It is safe for concurrent use.
type Server struct {
	delay   time.Duration
	garbage atomic.Int64

	// mu guards mode and counts.
	mu     sync.Mutex
	mode   Mode
	counts map[Mode]int64
}

// New returns a server in mode; slow mode waits delay before answering.
func New(mode Mode, delay time.Duration) *Server {
	return &Server{mode: mode, delay: delay, counts: map[Mode]int64{}}
}

// SetMode switches the mode for the requests that arrive next.
func (s *Server) SetMode(m Mode) {
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
}

// Mode is the current mode.
func (s *Server) Mode() Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// Handler serves the chat routes, /mode, /stats and /healthz.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /chat/completions", s.chat)
	mux.HandleFunc("GET /mode", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, s.Mode()) })
	mux.HandleFunc("PUT /mode", s.putMode)
	mux.HandleFunc("POST /mode", s.putMode)
	mux.HandleFunc("GET /stats", s.stats)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	return mux
}

func (s *Server) putMode(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 64))
	m, err := ParseMode(string(b))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.SetMode(m)
	fmt.Fprintln(w, m)
}

func (s *Server) stats(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	out := make(map[Mode]int64, len(s.counts))
	for k, v := range s.counts {
		out[k] = v
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// chatRequest is the part of a chat request the server reads.
type chatRequest struct {
	Model          string `json:"model"`
	Stream         bool   `json:"stream"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Messages []struct {
		Content string `json:"content"`
	} `json:"messages"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request body","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	mode := s.mode
	s.counts[mode]++
	s.mu.Unlock()
	switch mode {
	case ModeTimeout:
		select {
		case <-r.Context().Done():
		case <-time.After(maxHold):
		}
		return
	case ModeError:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"error":{"message":"the model is overloaded","type":"server_error"}}`)
		return
	case ModeGarbage:
		s.writeGarbage(w)
		return
	case ModeSlow:
		select {
		case <-r.Context().Done():
			return
		case <-time.After(s.delay):
		}
	}
	content := "The meeting covered this in the quoted turns [1]."
	if req.ResponseFormat != nil && req.ResponseFormat.Type == "json_object" {
		content = `{"summary":"The team discussed the plan.","title":"Plan","topics":[],"segments":[],` +
			`"agenda":[],"decisions":[],"action_items":[],"open_questions":[],"plan":"answer from the context",` +
			`"need_search":true,"can_answer":true,"missing_requirements":[]}`
	}
	model := req.Model
	if model == "" {
		model = "fake"
	}
	if req.Stream {
		writeStream(w, model, content)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "fake-1", "object": "chat.completion", "model": model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": promptWords(req), "completion_tokens": len(strings.Fields(content))},
	})
}

func promptWords(req chatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len(strings.Fields(m.Content))
	}
	return n
}

// writeStream sends content as server-sent chat chunks, a word at a time.
func writeStream(w http.ResponseWriter, model, content string) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"model": model, "choices": []any{
			map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	for i, word := range strings.SplitAfter(content, " ") {
		if i == 0 {
			chunk(map[string]any{"role": "assistant", "content": word}, nil)
			continue
		}
		chunk(map[string]any{"content": word}, nil)
	}
	chunk(map[string]any{}, "stop")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// garbageBodies are answered with status 200 in turn: a cut-off JSON
// body, an HTML page, an envelope whose content is not what was asked
// for, an envelope without choices, and a stream cut mid-event.
var garbageBodies = []struct{ contentType, body string }{
	{"application/json", `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"{\"segm`},
	{"text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>"},
	{"application/json", `{"id":"x","model":"fake","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"]]}{ ~~ not json ~~ {{\u0000"}}]}`},
	{"application/json", `{"id":"x","model":"fake","choices":[]}`},
	{"text/event-stream", "data: {\"choices\":[{\"delta\":{\"content\":\"par"},
}

func (s *Server) writeGarbage(w http.ResponseWriter) {
	g := garbageBodies[int(s.garbage.Add(1)-1)%len(garbageBodies)]
	w.Header().Set("Content-Type", g.contentType)
	fmt.Fprint(w, g.body)
}
