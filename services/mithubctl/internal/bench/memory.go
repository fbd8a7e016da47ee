package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/llm/openai"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/tokens"
)

// MemoryOptions shape the long-conversation memory benchmark.
type MemoryOptions struct {
	DataDir string
	Store   *store.Store
	Redis   redis.UniversalClient
	// Sizes are the conversation sizes in tokens (QMSum transcripts
	// concatenated until each is reached).
	Sizes []int
	// Window is the model window; the target is 10% of it.
	Window int
	// InFlight bounds the summaries in flight (MaxInFlight and the
	// in-process Asynq server's concurrency).
	InFlight int
	// LLMDelay > 0 summarises through an OpenAI-compatible server started
	// here that takes this long per call; 0 uses the local provider.
	LLMDelay time.Duration
	Tenant   string
}

// MemoryResult is one compression.
type MemoryResult struct {
	Provider     string        `json:"provider"`
	Tokens       int           `json:"tokens"`
	Turns        int           `json:"turns"`
	Chunks       int           `json:"chunks"`
	Units        int           `json:"units"`
	Levels       int           `json:"levels"`
	TargetTokens int           `json:"target_tokens"`
	FinalTokens  int           `json:"final_tokens"`
	Ratio        float64       `json:"ratio"`
	InFlight     int           `json:"in_flight"`
	PeakInFlight int64         `json:"peak_in_flight"`
	LLMCalls     int64         `json:"llm_calls"`
	Load         time.Duration `json:"load_ns"`
	Wall         time.Duration `json:"wall_ns"`
	Fits         bool          `json:"fits"`
}

// Memory compresses each size through memory:* Asynq tasks processed by
// an in-process Asynq server (the same handler as pr-worker's) and
// writes one line per size to w.
func Memory(ctx context.Context, o MemoryOptions, w io.Writer) ([]MemoryResult, error) {
	turns, err := qmsum.SpokenTurnsOf(o.DataDir, "train", "val", "test")
	if err != nil {
		return nil, err
	}
	count, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		return nil, err
	}
	tenant, err := o.Store.EnsureTenant(ctx, o.Tenant)
	if err != nil {
		return nil, err
	}
	g := &gaugedSummarizer{}
	provider := "local"
	g.inner = convmemory.NewLocal()
	if o.LLMDelay > 0 {
		url, stop, err := startSlowLLM(o.LLMDelay)
		if err != nil {
			return nil, err
		}
		defer stop()
		c, err := openai.New(openai.Config{BaseURL: url, Model: "bench", Timeout: o.LLMDelay + 30*time.Second, MaxRetries: 2})
		if err != nil {
			return nil, err
		}
		g.inner = convmemory.Chat{Chat: c, Model: "bench", SummaryTokens: convmemory.DefaultSummaryTokens, MergeTokens: convmemory.DefaultMergeTokens}
		provider = fmt.Sprintf("openai-compatible, %s per call", o.LLMDelay)
	}
	cfg := convmemory.Config{ContextWindow: o.Window, MaxInFlight: o.InFlight}
	eng := convmemory.NewEngine(o.Store, count, g, cfg)
	qname := fmt.Sprintf("bench-memory-%d", time.Now().UnixNano())
	opts := convmemory.QueueOptions{JobsKey: "mithub:bench:" + qname, QueueName: qname}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	q := convmemory.NewQueue(eng, asynq.NewClientFromRedisClient(o.Redis), o.Redis, opts, log)
	svc := convmemory.NewService(eng, q)
	srv := asynq.NewServerFromRedisClient(o.Redis, asynq.Config{Concurrency: o.InFlight, Queues: map[string]int{qname: 1},
		TaskCheckInterval: 20 * time.Millisecond, LogLevel: asynq.ErrorLevel})
	mux := asynq.NewServeMux()
	mux.Handle(tasks.TypeMemorySummarize, q)
	mux.Handle(tasks.TypeMemoryMerge, q)
	if err := srv.Start(mux); err != nil {
		return nil, fmt.Errorf("start asynq server: %w", err)
	}
	defer func() {
		srv.Shutdown()
		_ = asynq.NewInspectorFromRedisClient(o.Redis).DeleteQueue(qname, true)
	}()

	var out []MemoryResult
	for _, size := range o.Sizes {
		g.reset()
		r := MemoryResult{Provider: provider, InFlight: o.InFlight}
		start := time.Now()
		conv, err := svc.StartChat(ctx, tenant.ID, fmt.Sprintf("bench %d tokens", size))
		if err != nil {
			return out, err
		}
		if r.Turns, r.Tokens, err = loadTurns(ctx, o.Store, count, tenant.ID, conv.ID, turns, size); err != nil {
			return out, err
		}
		r.Load = time.Since(start)
		start = time.Now()
		job, err := svc.Compress(ctx, tenant.ID, conv.ID, o.Window)
		if err != nil {
			return out, err
		}
		p, err := waitJob(ctx, svc, q, job)
		if err != nil {
			return out, err
		}
		r.Wall = time.Since(start)
		st, err := svc.Stats(ctx, tenant.ID, conv.ID)
		if err != nil {
			return out, err
		}
		r.Chunks, r.Units, r.Levels, r.Fits = p.Chunks, p.UnitsPlanned(), st.Levels, p.Fits
		r.TargetTokens, r.FinalTokens, r.Ratio = job.TargetTokens, st.LiveTokens, st.CompressionRatio
		r.PeakInFlight, r.LLMCalls = g.peak.Load(), g.calls.Load()
		fmt.Fprintf(w, "memory %-9d tokens (%d turns, loaded in %s) provider=%s in_flight=%d: wall %s, %d chunks, %d summaries, %d levels, final %d tokens (target %d), ratio %.4f, peak %d in flight, %d calls\n",
			r.Tokens, r.Turns, r.Load.Round(time.Millisecond), r.Provider, r.InFlight, r.Wall.Round(10*time.Millisecond),
			r.Chunks, r.Units, r.Levels, r.FinalTokens, r.TargetTokens, r.Ratio, r.PeakInFlight, r.LLMCalls)
		out = append(out, r)
	}
	return out, nil
}

func waitJob(ctx context.Context, svc *convmemory.Service, q *convmemory.Queue, job convmemory.Job) (convmemory.Plan, error) {
	for {
		p, err := svc.Progress(ctx, job)
		if err != nil {
			return p, err
		}
		_, running, err := q.Running(ctx, job.ConversationID)
		if err != nil {
			return p, err
		}
		if p.Done && !running {
			return p, nil
		}
		select {
		case <-ctx.Done():
			return p, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// loadTurns stores turns (cycling through the corpus) until size tokens.
func loadTurns(ctx context.Context, st *store.Store, count tokens.Counter, tenantID, convID string, corpus []qmsum.Turn, size int) (int, int, error) {
	total, n := 0, 0
	batch := make([]conversation.NewNode, 0, 5000)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := st.AppendTurns(ctx, tenantID, convID, batch)
		batch = batch[:0]
		return err
	}
	for total < size {
		t := corpus[n%len(corpus)]
		speaker := strings.Join(strings.Fields(t.Speaker), " ")
		tok := count.Count(speaker + ": " + t.Content)
		batch = append(batch, conversation.NewNode{Seq: n, Text: speaker + "\t" + t.Content, Tokens: tok})
		total += tok
		n++
		if len(batch) == cap(batch) {
			if err := flush(); err != nil {
				return n, total, err
			}
		}
	}
	return n, total, flush()
}

// gaugedSummarizer counts calls and the most in flight at once.
type gaugedSummarizer struct {
	inner            convmemory.Summarizer
	cur, peak, calls atomic.Int64
}

func (g *gaugedSummarizer) reset() { g.peak.Store(0); g.calls.Store(0) }

func (g *gaugedSummarizer) enter() func() {
	g.calls.Add(1)
	n := g.cur.Add(1)
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
	return func() { g.cur.Add(-1) }
}

func (g *gaugedSummarizer) SummarizeChunk(ctx context.Context, turns []convmemory.Turn) (string, error) {
	defer g.enter()()
	return g.inner.SummarizeChunk(ctx, turns)
}

func (g *gaugedSummarizer) MergeSummaries(ctx context.Context, parts []string) (string, error) {
	defer g.enter()()
	return g.inner.MergeSummaries(ctx, parts)
}

// startSlowLLM serves an OpenAI-compatible /v1/chat/completions on a
// loopback port that answers after delay with the first words of the
// prompt's last message (a stand-in for a remote model's latency).
func startSlowLLM(delay time.Duration) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		words := strings.Fields(req.Messages[len(req.Messages)-1].Content)
		answer := strings.Join(words[:min(40, len(words))], " ")
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"model":   "bench",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": answer}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": len(words), "completion_tokens": 40},
		})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/v1", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = srv.Close()
		}
	}, nil
}
