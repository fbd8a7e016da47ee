package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/agent-api/internal/meetingcache"
)

// gatedEmbedder counts the calls that embed meeting turns and, once
// armed, holds them until released; query embeddings pass.
type gatedEmbedder struct {
	meetingctx.Embedder
	turns   map[string]bool
	release chan struct{}

	mu    sync.Mutex
	armed bool
	calls int
}

func (g *gatedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if g.turns[texts[0]] {
		g.mu.Lock()
		g.calls++
		armed := g.armed
		g.mu.Unlock()
		if armed {
			select {
			case <-g.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	return g.Embedder.Embed(ctx, texts)
}

func (g *gatedEmbedder) arm() (calls int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed, calls, g.calls = true, g.calls, 0
	return calls
}

func (g *gatedEmbedder) turnCalls() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

// An ask does not wait for turns to be embedded: with every turn
// embedding held, it answers from the lexical leg while a background job
// embeds the topics' and the pending turns; once that is done, asks and
// searches embed no turn again and the search still finds the turn.
func TestAskDoesNotWaitForTurnEmbedding(t *testing.T) {
	utts := twoSubjects(60)
	utts[37].Text = "The quarterly offsite venue is the lighthouse hotel"
	utts[55].Text = "등대 호텔 워크숍 장소 예약은 금요일까지입니다"
	g := &gatedEmbedder{Embedder: segment.NewEmbedder(64), turns: map[string]bool{}, release: make(chan struct{})}
	for _, u := range utts {
		g.turns[u.Text] = true
	}
	st := storetest.New(t)
	if _, err := st.EnableVectors(t.Context(), 64); err != nil {
		t.Fatal(err)
	}
	eng := meetingctx.NewEngine(meetingctx.EngineDeps{
		Segmenter: segment.NewSegmenter(segment.SegmenterConfig{}), Summarizer: segment.NewSummarizer(),
		Embedder: g, Store: meetingcache.TopicStore{Rows: st},
	})
	t.Cleanup(func() { _ = eng.Close(10 * time.Second) })
	h := newHarness(t, harnessOpts{engine: eng})
	// Cleanups run last-in first-out: release held calls before the
	// server shuts down.
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(g.release) }) })
	key := h.key("acme")
	m := h.createMeeting(key)
	h.post(key, m.ID, utts)
	c := h.context(key, m.ID)
	if len(c.L1.Topics) == 0 || len(c.Pending.Turns) == 0 {
		t.Fatalf("want topics and pending turns, got %d topics, %d pending", len(c.L1.Topics), len(c.Pending.Turns))
	}
	g.arm()

	type answer struct {
		status int
		system string
		body   []byte
	}
	done := make(chan answer, 1)
	go func() {
		status, res, body := h.askJSON(key, m.ID, "?debug=true", map[string]string{"question": "where is the lighthouse hotel venue?"})
		a := answer{status: status, body: body}
		if res.Debug != nil {
			a.system = res.Debug.System
		}
		done <- a
	}()
	select {
	case a := <-done:
		if a.status != http.StatusOK {
			t.Fatalf("ask: %d %s", a.status, a.body)
		}
		if !strings.Contains(a.system, utts[37].Text) {
			t.Fatalf("the lexical leg alone should find turn 37; context:\n%s", a.system)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the ask waited for turn embeddings")
	}
	// The ask handed the embedding to the background, which is held.
	deadline := time.Now().Add(10 * time.Second)
	for g.turnCalls() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no turn embedding was started for later asks")
		}
		time.Sleep(10 * time.Millisecond)
	}
	once.Do(func() { close(g.release) })
	h.ask.WaitEmbeddings()

	before := g.turnCalls()
	if status, _, body := h.askJSON(key, m.ID, "", map[string]string{"question": "where is the lighthouse hotel venue?"}); status != http.StatusOK {
		t.Fatalf("second ask: %d %s", status, body)
	}
	r := h.do(http.MethodGet, "/v1/meetings/"+m.ID+"/search?k=3&q="+url.QueryEscape("lighthouse hotel venue"), key, nil)
	var res turnSearchRes
	r.decode(t, &res)
	if r.status != http.StatusOK || len(res.Hits) == 0 || res.Hits[0].Seq != 37 {
		t.Fatalf("search: %d %+v", r.status, res.Hits)
	}
	if n := g.turnCalls() - before; n != 0 {
		t.Fatalf("%d turn embedding calls after the background ones finished; want 0 (cached)", n)
	}
}
