package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

// fakeModel is an OpenAI-compatible chat server that segments chunks by
// a fixed rule (a topic every 12 turns), summarises, and answers asks
// citing turns [1] and [2]. It counts every distinct request: the same
// request sent twice means two replicas (or one, twice) did the same L1
// work.
type fakeModel struct {
	mu       sync.Mutex
	segments map[int]int    // first seq of a segmented chunk → calls
	requests map[string]int // digest of a segment or summary request → calls
}

var (
	chunkRE = regexp.MustCompile(`from seq (\d+)\)? to seq (\d+)`)
	turnRE  = regexp.MustCompile(`(?m)^\[(\d+)\]`)
)

const topicEvery = 12

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Stream   bool `json:"stream"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) < 2 {
		http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusBadRequest)
		return
	}
	system, user := req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content
	digest := sha256.Sum256([]byte(system + "\x00" + user))
	var content string
	switch {
	case strings.HasPrefix(system, "You split a meeting transcript"):
		m := chunkRE.FindStringSubmatch(system)
		first, _ := strconv.Atoi(m[1])
		last, _ := strconv.Atoi(m[2])
		f.count(hex.EncodeToString(digest[:]), first)
		content = segmentReply(first, last, strings.Contains(system, "continue_to to the seq"))
	case strings.HasPrefix(system, "You summarize one topic"):
		f.count(hex.EncodeToString(digest[:]), -1)
		seqs := turnRE.FindAllStringSubmatch(user, -1)
		from, to := "?", "?"
		if len(seqs) > 0 {
			from, to = seqs[0][1], seqs[len(seqs)-1][1]
		}
		content = fmt.Sprintf(`{"title":"Turns %s to %s","summary":"The team went over turns %s to %s.","keywords":["plan"]}`, from, to, from, to)
	case strings.HasPrefix(system, "You plan how"):
		// The rule planner takes over.
		http.Error(w, `{"error":{"message":"planner off"}}`, http.StatusServiceUnavailable)
		return
	default:
		content = "As said in [1] and [2]."
	}
	if req.Stream {
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": content}}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		b, _ = json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}})
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", b)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "fake", "object": "chat.completion", "model": "fake",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
		"usage":   map[string]any{"prompt_tokens": len(strings.Fields(system + user)), "completion_tokens": len(strings.Fields(content))},
	})
}

func (f *fakeModel) count(digest string, first int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests[digest]++
	if first >= 0 {
		f.segments[first]++
	}
}

// segmentReply cuts a topic at every multiple of topicEvery; a later
// chunk continues the previous topic up to the next cut.
func segmentReply(first, last int, later bool) string {
	cont := -1
	start := first
	if later && first%topicEvery != 0 {
		cont = min(last, (first/topicEvery+1)*topicEvery-1)
		start = cont + 1
	}
	var topics []string
	for s := start; s <= last; {
		e := min(last, (s/topicEvery+1)*topicEvery-1)
		topics = append(topics, fmt.Sprintf(`{"start_seq":%d,"end_seq":%d,"title":"Block %d","summary":"The team discussed block %d.","keywords":["block%d"]}`,
			s, e, s/topicEvery, s/topicEvery, s/topicEvery))
		s = e + 1
	}
	return fmt.Sprintf(`{"continue_to":%d,"topics":[%s]}`, cont, strings.Join(topics, ","))
}

// agentReplica is one agent-api process.
type agentReplica struct {
	name string
	base string
	proc *process
	dead atomic.Bool
}

// TestReplicasAgreeOnOneMeeting runs three agent-api processes on one
// PostgreSQL behind a round-robin client, with concurrent writers. The L1
// owner is killed (SIGKILL) mid-meeting and the next owner drained
// (SIGTERM), each replaced by a new process, as a Deployment would; the
// meeting is ended through a third replica. Every turn must lie in
// exactly one persisted topic, every live replica must serve the same
// context, topics and citations within replicaBound, and the model must
// see each chunk (and each summary request) once.
func TestReplicasAgreeOnOneMeeting(t *testing.T) {
	const (
		chunk        = 10
		replicaBound = 15 * time.Second
		writers      = 3
		batch        = 3
	)
	apiBin, _ := binaries(t)
	dsn, schema := storetest.NewSchema(t)
	dbURL := storetest.URLWithSchema(t, dsn, schema)
	model := &fakeModel{segments: map[int]int{}, requests: map[string]int{}}
	llm := httptest.NewServer(model)
	t.Cleanup(llm.Close)

	var reps []*agentReplica
	var repMu sync.Mutex
	startReplica := func(name string) *agentReplica {
		addr := freeAddr(t)
		p := start(t, apiBin, []string{"MITHUB_ENV=dev", "MITHUB_DATABASE_URL=" + dbURL, "MITHUB_HTTP_ADDR=" + addr,
			"MITHUB_REDIS_URL=redis://127.0.0.1:6379/13", "MITHUB_LOG_LEVEL=warn", "MITHUB_SHUTDOWN_TIMEOUT=5s",
			"MITHUB_LLM_PROVIDER=openai", "MITHUB_LLM_BASE_URL=" + llm.URL + "/v1", "MITHUB_LLM_MODEL=fake", "MITHUB_LLM_API_KEY=fake",
			"MITHUB_EMBED_PROVIDER=local", "MITHUB_CTX_CHUNK_TURNS=" + strconv.Itoa(chunk), "MITHUB_CTX_OWNER_RETRY=200ms",
			"MITHUB_RATE_LIMIT_RPS=0"})
		r := &agentReplica{name: name, base: "http://" + addr, proc: p}
		waitHealthy(t, r.base, p)
		repMu.Lock()
		reps = append(reps, r)
		repMu.Unlock()
		return r
	}
	for i := range 3 {
		startReplica(fmt.Sprint("r", i))
	}
	live := func() []*agentReplica {
		repMu.Lock()
		defer repMu.Unlock()
		var out []*agentReplica
		for _, r := range reps {
			if !r.dead.Load() {
				out = append(out, r)
			}
		}
		return out
	}

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	call := func(r *agentReplica, method, path string, body any, out any) error {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequestWithContext(ctx, method, r.base+path, bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer dev-key")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
			return &statusError{resp.StatusCode, fmt.Sprintf("%s %s on %s: %d %s", method, path, r.name, resp.StatusCode, b)}
		}
		if out != nil {
			return json.Unmarshal(b, out)
		}
		return nil
	}
	// The round-robin client: each request goes to the next replica; a
	// replica that refuses the connection (dead, draining) is skipped, as
	// a Service's endpoints drop it.
	var rr atomic.Uint64
	roundRobin := func(method, path string, body any, out any) {
		t.Helper()
		for attempt := 0; ; attempt++ {
			ls := live()
			r := ls[int(rr.Add(1))%len(ls)]
			err := call(r, method, path, body, out)
			if err == nil {
				return
			}
			var status *statusError
			if attempt > 50 || (errors.As(err, &status) && status.code < 500) {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	var mt struct {
		ID string `json:"id"`
	}
	roundRobin(http.MethodPost, "/v1/meetings", map[string]string{"title": "replicas"}, &mt)
	path := "/v1/meetings/" + mt.ID

	words := []string{"budget", "hiring", "launch", "pricing", "security", "roadmap"}
	var written atomic.Int64
	// writeTurns posts n turns per writer, writers at once, in batches
	// spread over the replicas.
	writeTurns := func(phase, n int) {
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < n; i += batch {
					var us []map[string]any
					for k := i; k < min(i+batch, n); k++ {
						id := fmt.Sprintf("p%d-w%d-%04d", phase, w, k)
						us = append(us, map[string]any{"segment_id": id, "speaker_id": fmt.Sprint("w", w), "speaker_name": fmt.Sprint("Writer ", w),
							"text":     fmt.Sprintf("we talk about the %s plan, point %d of writer %d", words[(phase*2+k/7)%len(words)], k, w),
							"start_ms": phase*100000 + k*1000, "end_ms": phase*100000 + k*1000 + 900})
					}
					roundRobin(http.MethodPost, path+"/utterances", map[string]any{"utterances": us}, nil)
					written.Add(int64(len(us)))
				}
			}()
		}
		wg.Wait()
	}

	st, err := store.Open(ctx, dsn, store.Options{Schema: schema, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	var tenantID string
	if err := st.Pool().QueryRow(ctx, `SELECT tenant_id::text FROM meetings WHERE id = $1`, mt.ID).Scan(&tenantID); err != nil {
		t.Fatal(err)
	}

	type ctxView struct {
		Cursor int `json:"cursor"`
		L1     struct {
			Cursor int               `json:"cursor"`
			Topics []json.RawMessage `json:"topics"`
			Busy   bool              `json:"busy"`
		} `json:"l1"`
		Pending struct {
			Turns []json.RawMessage `json:"turns"`
		} `json:"pending"`
		Speakers json.RawMessage `json:"speakers"`
		Counters json.RawMessage `json:"counters"`
	}
	// settled waits until every live replica serves the same context and
	// topics as PostgreSQL holds, with every full chunk segmented, no L1
	// work running or due, and returns the context.
	settled := func(what string, ended bool) ctxView {
		t.Helper()
		deadline := time.Now().Add(replicaBound)
		for {
			var (
				views  []ctxView
				topics []json.RawMessage
				why    string
			)
			row, err := st.GetMeeting(ctx, tenantID, mt.ID)
			if err != nil {
				t.Fatal(err)
			}
			stored, err := st.ListTopics(ctx, tenantID, mt.ID)
			if err != nil {
				t.Fatal(err)
			}
			storedEnd := -1
			if len(stored) > 0 {
				storedEnd = stored[len(stored)-1].EndSeq
			}
			wantEnd := row.Utterances/chunk*chunk - 1
			if ended {
				wantEnd = row.Utterances - 1
			}
			if storedEnd != wantEnd {
				why = fmt.Sprintf("stored topics end at %d, want %d", storedEnd, wantEnd)
			}
			for _, r := range live() {
				var v ctxView
				var tl struct {
					Topics []json.RawMessage `json:"topics"`
				}
				if err := call(r, http.MethodGet, path+"/context", nil, &v); err != nil {
					t.Fatal(err)
				}
				if err := call(r, http.MethodGet, path+"/topics", nil, &tl); err != nil {
					t.Fatal(err)
				}
				switch {
				case v.L1.Busy:
					why = r.name + " is busy"
				case v.Cursor != row.Utterances-1 || v.L1.Cursor != storedEnd:
					why = fmt.Sprintf("%s at cursor %d / l1 %d, stored %d / %d", r.name, v.Cursor, v.L1.Cursor, row.Utterances-1, storedEnd)
				case len(views) > 0 && !reflect.DeepEqual(v, views[0]):
					why = r.name + "'s context differs from " + live()[0].name + "'s"
				case len(views) > 0 && !reflect.DeepEqual(tl.Topics, topics):
					why = r.name + "'s topics differ"
				case len(tl.Topics) != len(stored):
					why = fmt.Sprintf("%s serves %d topics, %d stored", r.name, len(tl.Topics), len(stored))
				}
				views, topics = append(views, v), tl.Topics
			}
			if why == "" {
				return views[0]
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: replicas did not agree within %s: %s", what, replicaBound, why)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// owner finds the replica that owns the meeting's L1 work.
	owner := func() *agentReplica {
		t.Helper()
		var found []*agentReplica
		for _, r := range live() {
			resp, err := http.Get(r.base + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(b), "\nmithub_l1_owned_meetings 1\n") {
				found = append(found, r)
			}
		}
		if len(found) != 1 {
			t.Fatalf("%d replicas own the meeting", len(found))
		}
		return found[0]
	}

	writeTurns(0, 24)
	settled("after the first writes", false)

	// The owner is killed while idle: no chunk is in flight, so no work is
	// lost or repeated; the next owner segments what comes.
	dead := owner()
	if err := dead.proc.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	dead.dead.Store(true)
	<-dead.proc.done
	dead.proc.done <- nil
	startReplica("r3")
	writeTurns(1, 24)
	settled("after the owner was killed", false)

	// The next owner drains: it finishes its work and releases the meeting.
	drained := owner()
	drained.dead.Store(true)
	if err := drained.proc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := waitExit(t, drained.proc, 30*time.Second); err != nil {
		t.Fatalf("drained replica exited with %v", err)
	}
	startReplica("r4")
	writeTurns(2, 17)

	// The meeting ends through an original replica that has lived through
	// both: the tail is segmented once, from PostgreSQL.
	var ender *agentReplica
	for _, r := range live() {
		if r.name < "r3" {
			ender = r
		}
	}
	if err := call(ender, http.MethodPost, path+"/end", nil, nil); err != nil {
		t.Fatal(err)
	}
	final := settled("after the end", true)

	total := int(written.Load())
	if final.Cursor != total-1 {
		t.Fatalf("replicas hold %d turns, %d written", final.Cursor+1, total)
	}
	rows, err := st.ListTopics(ctx, tenantID, mt.ID)
	if err != nil {
		t.Fatal(err)
	}
	covered := make([]int, total)
	for _, tp := range rows {
		for s := tp.StartSeq; s <= tp.EndSeq && s < total; s++ {
			covered[s]++
		}
	}
	for s, n := range covered {
		if n != 1 {
			t.Fatalf("turn %d lies in %d persisted topics", s, n)
		}
	}

	// The same question cites the same turns on every replica.
	var cites []string
	for _, r := range live() {
		var ans struct {
			Citations []struct {
				Seq int `json:"seq"`
			} `json:"citations"`
		}
		if err := call(r, http.MethodPost, path+"/ask", map[string]string{"question": "what did we decide about the pricing plan?"}, &ans); err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(ans.Citations)
		if len(ans.Citations) == 0 {
			t.Fatalf("%s cites nothing", r.name)
		}
		if len(cites) > 0 && got != cites[0] {
			t.Fatalf("%s cites %s, %s cites %s", r.name, got, live()[0].name, cites[0])
		}
		cites = append(cites, got)
	}

	model.mu.Lock()
	defer model.mu.Unlock()
	if want := (total + chunk - 1) / chunk; len(model.segments) != want {
		t.Errorf("%d chunks segmented, want %d", len(model.segments), want)
	}
	for first, n := range model.segments {
		if n != 1 {
			t.Errorf("the chunk from seq %d was segmented %d times", first, n)
		}
	}
	for d, n := range model.requests {
		if n != 1 {
			t.Errorf("request %s.. sent %d times", d[:12], n)
		}
	}
	t.Logf("%d turns, %d persisted topics, %d chunks, %d model requests", total, len(rows), len(model.segments), len(model.requests))
}

// statusError is an HTTP answer other than 200 or 201.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return e.msg }
