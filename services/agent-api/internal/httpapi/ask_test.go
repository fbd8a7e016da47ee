package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/llm/openai"
	"github.com/mithub/mithub/pkg/llm/prompted"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/agent-api/internal/ask"
	"github.com/mithub/mithub/services/agent-api/internal/meetingcache"
)

type sseEvent struct {
	name string
	data []byte
}

// askSSE posts a question and reads the whole event stream.
func (h *harness) askSSE(key, meetingID string, body any) (int, []sseEvent) {
	h.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, h.base+"/v1/meetings/"+meetingID+"/ask", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, nil
	}
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = []byte(strings.TrimPrefix(line, "data: "))
		case line == "":
			out = append(out, cur)
			cur = sseEvent{}
		}
	}
	return resp.StatusCode, out
}

func (h *harness) askJSON(key, meetingID, query string, body any) (int, ask.Result, []byte) {
	h.t.Helper()
	b, _ := json.Marshal(body)
	r := h.do(http.MethodPost, "/v1/meetings/"+meetingID+"/ask"+query, key, b, "Accept", "application/json")
	var res ask.Result
	if r.status == http.StatusOK {
		r.decode(h.t, &res)
	}
	return r.status, res, r.body
}

// The answer streams as token events, then one citation event per cited
// turn, then done; citations point at stored turns of the right subject.
func TestAskStreamsCitedAnswer(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	us := twoSubjects(60)
	h.post(key, m.ID, us)

	status, events := h.askSSE(key, m.ID, map[string]string{"question": "When do we post the 채용 job ad for backend engineers?"})
	if status != http.StatusOK || len(events) < 3 {
		t.Fatalf("status %d, %d events", status, len(events))
	}
	var text strings.Builder
	var cited []answer.Citation
	var done ask.Result
	for i, ev := range events {
		switch ev.name {
		case "token":
			var tok struct{ Text string }
			json.Unmarshal(ev.data, &tok)
			text.WriteString(tok.Text)
		case "citation":
			var c answer.Citation
			json.Unmarshal(ev.data, &c)
			cited = append(cited, c)
		case "done":
			if i != len(events)-1 {
				t.Fatalf("done is not the last event")
			}
			json.Unmarshal(ev.data, &done)
		default:
			t.Fatalf("unexpected event %q: %s", ev.name, ev.data)
		}
	}
	if strings.TrimSpace(text.String()) != done.Answer || done.Provider != "local" || done.ThreadID == "" {
		t.Fatalf("streamed %q, done %+v", text.String(), done)
	}
	if len(cited) == 0 || len(cited) != len(done.Citations) {
		t.Fatalf("%d citation events, done has %d", len(cited), len(done.Citations))
	}
	for _, c := range cited {
		u := us[c.Seq]
		if c.Text != u.Text || c.SpeakerName != u.SpeakerName || c.Time != answer.Clock(u.StartMS) {
			t.Fatalf("citation %+v does not match stored turn %+v", c, u)
		}
		if c.Seq < 30 {
			t.Fatalf("citation of turn %d about the budget, not hiring: %+v", c.Seq, c)
		}
	}
}

// A follow-up resolves against the previous exchange of its thread, also
// on a restarted server.
func TestAskThreadFollowUpSurvivesRestart(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	h.post(key, m.ID, twoSubjects(60))

	status, first, body := h.askJSON(key, m.ID, "", map[string]string{"question": "How much of the advertising budget do we cut?"})
	if status != http.StatusOK {
		t.Fatalf("ask: %d %s", status, body)
	}
	h2 := newHarnessOnStore(t, h)
	status, second, body := h2.askJSON(key, m.ID, "", map[string]string{"question": "and who agreed to that?", "thread_id": first.ThreadID})
	if status != http.StatusOK {
		t.Fatalf("follow-up: %d %s", status, body)
	}
	if !strings.Contains(second.Plan.NextSubquery, "advertising budget") {
		t.Fatalf("follow-up searched %q, not resolved against the thread", second.Plan.NextSubquery)
	}
	for _, c := range second.Citations {
		if c.Seq >= 30 {
			t.Fatalf("follow-up cites turn %d about hiring: %+v", c.Seq, c)
		}
	}
	if len(second.Citations) == 0 {
		t.Fatalf("follow-up has no citation: %q", second.Answer)
	}

	// A thread is bound to its meeting.
	other := h.createMeeting(key)
	h.post(key, other.ID, twoSubjects(4))
	status, res, _ := h.askJSON(key, other.ID, "", map[string]string{"question": "budget?", "thread_id": first.ThreadID})
	if status != http.StatusOK || len(res.Warnings) == 0 {
		t.Fatalf("thread reused across meetings: %d %+v", status, res.Warnings)
	}
}

// Catch-up uses only turns from since_ms on; debug shows the packed
// context and its accounting.
func TestAskCatchUp(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	us := twoSubjects(60)
	h.post(key, m.ID, us)
	since := us[45].StartMS
	status, res, body := h.askJSON(key, m.ID, "?debug=true", map[string]any{"mode": "catch_up", "since_ms": since})
	if status != http.StatusOK {
		t.Fatalf("catch up: %d %s", status, body)
	}
	if len(res.Citations) == 0 || res.SinceMS == nil || *res.SinceMS != since || res.Debug == nil {
		t.Fatalf("catch up result %+v", res)
	}
	for _, c := range res.Citations {
		if c.StartMS < since {
			t.Fatalf("catch-up cites turn %d at %d ms, before %d", c.Seq, c.StartMS, since)
		}
	}
	if res.Debug.Total > res.Debug.Budget || res.Debug.Total != res.ContextTokens || res.Debug.Exact == 0 || res.Debug.Exact > res.Debug.Total {
		t.Fatalf("debug accounting %d (exact %d) of %d, result says %d", res.Debug.Total, res.Debug.Exact, res.Debug.Budget, res.ContextTokens)
	}
	for _, u := range us[:45] {
		if strings.Contains(res.Debug.System, "] "+answer.Clock(u.StartMS)+" ") {
			t.Fatalf("context shows a turn at %s, before since_ms", answer.Clock(u.StartMS))
		}
	}
}

func TestAskRejectsBadRequests(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	h.post(key, m.ID, twoSubjects(4))
	otherKey := h.key("globex")
	tests := []struct {
		name string
		key  string
		id   string
		body string
		want int
	}{
		{"no question", key, m.ID, `{"mode":"answer"}`, 400},
		{"blank question", key, m.ID, `{"question":"   "}`, 400},
		{"unknown mode", key, m.ID, `{"question":"q","mode":"poem"}`, 400},
		{"negative since", key, m.ID, `{"mode":"catch_up","since_ms":-5}`, 400},
		{"thread id with spaces", key, m.ID, `{"question":"q","thread_id":"a b"}`, 400},
		{"long question segment id", key, m.ID, fmt.Sprintf(`{"question":"q","question_segment_id":%q}`, strings.Repeat("s", 257)), 400},
		{"question segment id with a newline", key, m.ID, `{"question":"q","question_segment_id":"s\n1"}`, 400},
		{"long question", key, m.ID, fmt.Sprintf(`{"question":%q}`, strings.Repeat("예", ask.MaxQuestionRunes+1)), 400},
		{"unknown field", key, m.ID, `{"question":"q","temperature":2}`, 400},
		{"wrong type", key, m.ID, `{"question":42}`, 400},
		{"unknown meeting", key, "00000000-0000-4000-8000-000000000000", `{"question":"q"}`, 404},
		{"other tenant", otherKey, m.ID, `{"question":"q"}`, 404},
		{"no key", "", m.ID, `{"question":"q"}`, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(http.MethodPost, "/v1/meetings/"+tt.id+"/ask", tt.key, []byte(tt.body))
			var e struct {
				Error struct{ Code, Message string }
			}
			if r.status != tt.want || json.Unmarshal(r.body, &e) != nil || e.Error.Message == "" {
				t.Fatalf("status %d (want %d): %s", r.status, tt.want, r.body)
			}
		})
	}
	if cps := countCheckpoints(t, h); cps != 0 {
		t.Fatalf("rejected asks saved %d checkpoints", cps)
	}
}

func countCheckpoints(t *testing.T, h *harness) int {
	t.Helper()
	var n int
	if err := h.store.Pool().QueryRow(t.Context(), `SELECT count(*) FROM agent_checkpoints`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// blockingLLM is an OpenAI-compatible server whose segmentation calls
// hang until released, while answers stream at once.
type blockingLLM struct {
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	blocked int
}

func (b *blockingLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Stream   bool `json:"stream"`
		Messages []struct{ Content string }
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	if !req.Stream {
		b.mu.Lock()
		b.blocked++
		b.mu.Unlock()
		select {
		case <-b.release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"not json"},"finish_reason":"stop"}]}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, piece := range []string{"The latest turns say ", "so [1]."} {
		b, _ := json.Marshal(piece)
		fmt.Fprintf(w, "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (b *blockingLLM) calls() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.blocked
}

// An ask right after new turns does not wait for a slow topic model past
// the L1 bound: it answers with the unsegmented turns given raw.
func TestAskDoesNotBlockOnSlowSegmentation(t *testing.T) {
	llm := &blockingLLM{release: make(chan struct{})}
	srv := httptest.NewServer(llm)
	t.Cleanup(srv.Close)
	cl, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "m", MaxRetries: -1, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.New(t)
	if _, err := st.EnableVectors(t.Context(), 64); err != nil {
		t.Fatal(err)
	}
	eng := meetingctx.NewEngine(meetingctx.EngineDeps{
		Segmenter: prompted.NewSegmenter(cl, prompted.Config{Model: "m"}), Summarizer: segment.NewSummarizer(),
		Embedder: segment.NewEmbedder(64), Store: meetingcache.TopicStore{Rows: st},
	})
	t.Cleanup(func() { _ = eng.Close(10 * time.Second) })
	// Cleanups run last-in first-out: release the model before closing.
	t.Cleanup(func() { llm.once.Do(func() { close(llm.release) }) })
	h := newHarness(t, harnessOpts{engine: eng, l1Wait: 200 * time.Millisecond,
		planner: answer.RulePlanner{}, answerer: answer.Chat{Chat: cl, Model: "m"}})
	key := h.key("acme")
	m := h.createMeeting(key)
	us := twoSubjects(30)
	h.post(key, m.ID, us)

	status, res, body := h.askJSON(key, m.ID, "?debug=true", map[string]string{"question": "what is the budget plan?"})
	if status != http.StatusOK {
		t.Fatalf("ask: %d %s", status, body)
	}
	if llm.calls() == 0 {
		t.Fatal("segmentation was never called; the test proves nothing")
	}
	if res.L1Waited || res.PendingTurns != len(us) || res.Provider != "openai" {
		t.Fatalf("waited %v, %d pending turns, provider %s", res.L1Waited, res.PendingTurns, res.Provider)
	}
	for _, u := range us[len(us)-5:] {
		if !strings.Contains(res.Debug.System, u.Text) {
			t.Fatalf("pending turn %q missing from the context", u.Text)
		}
	}
	if len(res.Citations) != 1 {
		t.Fatalf("citations %+v", res.Citations)
	}
}

// The project's memory bank reaches the answer's context.
func TestAskUsesMemoryBank(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	h.post(key, m.ID, twoSubjects(10))
	entry := "2026-11-02 weekly: 광고 예산은 분기마다 재검토한다 (ad budget reviewed quarterly)"
	if r := h.json(http.MethodPut, "/v1/memory-bank/default/03-decisions", key, map[string]string{"content": entry}); r.status != http.StatusOK {
		t.Fatalf("put memory bank: %d %s", r.status, r.body)
	}
	status, res, body := h.askJSON(key, m.ID, "?debug=true", map[string]string{"question": "what was decided about the budget before?"})
	if status != http.StatusOK {
		t.Fatalf("ask: %d %s", status, body)
	}
	if !strings.Contains(res.Debug.System, entry) {
		t.Fatalf("memory bank missing from the context:\n%s", res.Debug.System)
	}
}

// Without since_ms, a catch-up starts where the asker last left (taken
// PresenceLagMS early, not before the asker's own last words), else it
// covers the minutes before the question; presence events are stored
// once and only in the tenant's own meetings.
func TestAskCatchUpSinceAskerLeft(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key, other := h.key("acme"), h.key("globex")
	before := time.Now()
	m := h.createMeeting(key)
	us := twoSubjects(60)
	h.post(key, m.ID, us)
	presence := func(key string, body any) response {
		b, _ := json.Marshal(body)
		return h.do(http.MethodPost, "/v1/meetings/"+m.ID+"/presence", key, b)
	}
	left := us[40].StartMS
	for i, want := range []bool{true, false} {
		r := presence(key, map[string]any{"participant_id": "guest-1", "event": "left", "at_ms": left})
		var got struct {
			Created bool  `json:"created"`
			AtMS    int64 `json:"at_ms"`
		}
		if r.status != http.StatusOK {
			t.Fatalf("presence #%d: %d %s", i, r.status, r.body)
		}
		r.decode(t, &got)
		if got.Created != want || got.AtMS != left {
			t.Fatalf("presence #%d: %+v, want created=%v at %d", i, got, want, left)
		}
	}
	status, res, body := h.askJSON(key, m.ID, "", map[string]any{"mode": "catch_up", "asker_id": "guest-1"})
	from := left - ask.PresenceLagMS
	if status != http.StatusOK || res.SinceMS == nil || *res.SinceMS != from || res.Window != ask.WindowSinceLeft || len(res.Citations) == 0 {
		t.Fatalf("catch-up of a returning guest: %d since %v (%s), %d citations: %s", status, res.SinceMS, res.Window, len(res.Citations), body)
	}
	for _, c := range res.Citations {
		if c.StartMS < from {
			t.Fatalf("catch-up cites turn %d at %d ms, before the guest left at %d", c.Seq, c.StartMS, left)
		}
	}
	// Without a leave, the period is the minutes before the question
	// (here the whole 4-minute meeting), never "since the asker last
	// spoke", which for a voice question is the question itself.
	if _, res, body := h.askJSON(key, m.ID, "", map[string]any{"mode": "catch_up", "asker_id": "spk1"}); res.SinceMS == nil || *res.SinceMS != 0 || res.Window != ask.WindowRecent {
		t.Fatalf("catch-up of spk1 since %v (%s), want the recent window from 0: %s", res.SinceMS, res.Window, body)
	}
	// Leaving marks the period even when the asker spoke later; it starts
	// after the asker's own words said within the lag before leaving.
	if r := presence(key, map[string]any{"participant_id": "spk1", "event": "left", "at_ms": us[10].StartMS}); r.status != http.StatusOK {
		t.Fatalf("presence: %d %s", r.status, r.body)
	}
	if _, res, body := h.askJSON(key, m.ID, "", map[string]any{"mode": "catch_up", "asker_id": "spk1"}); res.SinceMS == nil || *res.SinceMS != us[10].EndMS {
		t.Fatalf("catch-up of spk1 since %v, want the end of its words as it left %d: %s", res.SinceMS, us[10].EndMS, body)
	}
	for _, tt := range []struct {
		name   string
		key    string
		body   any
		status int
	}{
		{"unknown event", key, map[string]any{"participant_id": "kim", "event": "away"}, http.StatusBadRequest},
		{"no participant", key, map[string]any{"event": "left"}, http.StatusBadRequest},
		{"negative time", key, map[string]any{"participant_id": "kim", "event": "left", "at_ms": -1}, http.StatusBadRequest},
		{"unknown field", key, map[string]any{"participant_id": "kim", "event": "left", "where": "x"}, http.StatusBadRequest},
		{"another tenant's meeting", other, map[string]any{"participant_id": "kim", "event": "left"}, http.StatusNotFound},
	} {
		if r := presence(tt.key, tt.body); r.status != tt.status {
			t.Fatalf("%s: %d %s, want %d", tt.name, r.status, r.body, tt.status)
		}
	}
	// Without at_ms the event is stamped with the time since the meeting
	// started.
	r := presence(key, map[string]any{"participant_id": "guest-2", "event": "left"})
	var now struct {
		AtMS int64 `json:"at_ms"`
	}
	if r.status != http.StatusOK {
		t.Fatalf("presence now: %d %s", r.status, r.body)
	}
	r.decode(t, &now)
	if elapsed := time.Since(before).Milliseconds(); now.AtMS < 0 || now.AtMS > elapsed {
		t.Fatalf("presence stamped at %d ms, meeting is %d ms old", now.AtMS, elapsed)
	}
	if _, res, _ := h.askJSON(key, m.ID, "", map[string]any{"mode": "catch_up", "asker_id": "guest-2"}); res.SinceMS == nil || *res.SinceMS != max(now.AtMS-ask.PresenceLagMS, 0) {
		t.Fatalf("catch-up of guest-2 starts at %v, want %d", res.SinceMS, max(now.AtMS-ask.PresenceLagMS, 0))
	}
}

// Rows another process wrote straight to PostgreSQL, with no sync ping,
// are in the next answer's context.
func TestAskSeesRowsWrittenElsewhere(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	h.post(key, m.ID, twoSubjects(12))
	// The context is warm before the other writer's row lands.
	if status, _, body := h.askJSON(key, m.ID, "", map[string]string{"question": "budget?"}); status != http.StatusOK {
		t.Fatalf("first ask: %d %s", status, body)
	}
	tenant, err := h.store.EnsureTenant(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	text := "The penguin mascot costs three hundred dollars, 펭귄 마스코트는 삼백 달러입니다"
	if _, err := h.store.Ingest(context.Background(), tenant.ID, m.ID, []store.Utterance{
		{SegmentID: "worker-1", SpeakerID: "spk9", SpeakerName: "박지영", Text: text, StartMS: 60_000, EndMS: 63_000, Confidence: 1, Tokens: 20, Source: "livekit"},
	}); err != nil {
		t.Fatal(err)
	}
	status, res, body := h.askJSON(key, m.ID, "", map[string]string{"question": "How much does the penguin mascot cost?"})
	if status != http.StatusOK {
		t.Fatalf("ask: %d %s", status, body)
	}
	for _, c := range res.Citations {
		if c.Text == text && c.Seq == 12 {
			return
		}
	}
	t.Fatalf("the row written elsewhere (seq 12) is not cited: %s", body)
}

// A model that fails before its first token (an error status, a cut-off
// or unreadable reply) still leaves the asker with an answer: an
// extractive one from the same context, with a warning that says so.
func TestAskFallsBackWhenTheModelFails(t *testing.T) {
	for name, reply := range map[string]func(http.ResponseWriter){
		"error status": func(w http.ResponseWriter) {
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusInternalServerError)
		},
		"cut-off body": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"choices":[{"message":{"content":"The bud`))
		},
		"not a reply": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>502 Bad Gateway</html>"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { reply(w) }))
			t.Cleanup(srv.Close)
			cl, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "m", MaxRetries: -1, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, harnessOpts{planner: answer.RulePlanner{}, answerer: answer.Chat{Chat: cl, Model: "m"}})
			key := h.key("acme")
			m := h.createMeeting(key)
			h.post(key, m.ID, twoSubjects(30))
			status, res, body := h.askJSON(key, m.ID, "", map[string]string{"question": "What about the 채용 interview loops for engineers?"})
			if status != http.StatusOK || res.Provider != "local" || len(res.Citations) == 0 {
				t.Fatalf("ask: %d %s", status, body)
			}
			warned := false
			for _, w := range res.Warnings {
				warned = warned || strings.Contains(w, "the model did not answer")
			}
			if !warned {
				t.Fatalf("no warning that the model failed: %+v", res.Warnings)
			}
			// The stream says the same.
			status, events := h.askSSE(key, m.ID, map[string]string{"question": "budget?"})
			if status != http.StatusOK || len(events) == 0 || events[len(events)-1].name != "done" {
				t.Fatalf("stream: %d, %d events", status, len(events))
			}
		})
	}
}
