package memoryeval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/tokens"
)

// ToolCaller calls MCP tools: a client session on `mithubctl mcp` over
// stdio, or on agent-api's /mcp.
type ToolCaller interface {
	CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
}

// LoopOptions configure RunLoop.
type LoopOptions struct {
	// Corpus is the filler (see TrainCorpus).
	Corpus []qmsum.Turn
	// Sizes are the conversation sizes in tokens.
	Sizes []int
	// Window is the model window the agent declares (default 32000).
	Window int
	// Seed picks the filler offset, the facts' values and positions.
	Seed uint64
	// AnswerEvery is how many messages the agent adds between two
	// answers, each preceded by memory_should_compress (default 2: a
	// question and its answer).
	AnswerEvery int
}

// Loop is what the agent loop saw through the MCP tools.
type Loop struct {
	Adds int `json:"adds"`
	// AddsPerSecond is memory_add_message calls per second of their own
	// round trips.
	AddsPerSecond float64 `json:"adds_per_second"`
	// Checks counts memory_should_compress calls; Compressions those that
	// said yes (each followed by memory_get_context).
	Checks       int `json:"checks"`
	Compressions int `json:"compressions"`
	// MaxHeld is the most tokens the agent held (its last context plus
	// the messages added since) when a check answered; Threshold the
	// check's compression threshold.
	MaxHeld   int `json:"max_held"`
	Threshold int `json:"threshold"`
	// Drift is the largest difference between the live count a check
	// reported and what the agent really held.
	Drift int `json:"drift"`
	// ContextTime is the mean time of a memory_get_context that
	// compressed.
	ContextTime time.Duration `json:"context_ns"`
}

// RunLoop plays each scenario through MCP tools exactly as an agent
// following the documented loop does: memory_start_conversation, then
// every message with memory_add_message, memory_should_compress before
// each answer and memory_get_context when it says yes. At the end it
// measures the context memory_get_context returns at 10% of the window,
// and memory_search (top 10, the conversation's scope) with each fact's
// question, beside the same baselines as Run.
func RunLoop(ctx context.Context, tc ToolCaller, o LoopOptions, w io.Writer) ([]Result, error) {
	if o.Window <= 0 {
		o.Window = 32_000
	}
	if o.AnswerEvery <= 0 {
		o.AnswerEvery = 2
	}
	count, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, size := range o.Sizes {
		r, err := loopOne(ctx, tc, count, o, size)
		if err != nil {
			return out, fmt.Errorf("eval-memory loop %d tokens: %w", size, err)
		}
		fmt.Fprintln(w, r.Line())
		out = append(out, r)
	}
	return out, nil
}

func loopOne(ctx context.Context, tc ToolCaller, count tokens.Counter, o LoopOptions, size int) (Result, error) {
	sc, err := Generate(o.Corpus, size, o.Seed, count.Count)
	if err != nil {
		return Result{}, err
	}
	// The budget is the memory's target for the window (its checks say
	// it); 10% until the first check.
	r := Result{Size: size, Turns: len(sc.Messages), Facts: sc.Facts, Budget: o.Window / 10, Loop: &Loop{}}
	var conv struct {
		ID string `json:"id"`
	}
	title := fmt.Sprintf("eval-memory loop %d tokens seed %d", size, o.Seed)
	if err := call(ctx, tc, "memory_start_conversation", map[string]any{"title": title}, &conv); err != nil {
		return r, err
	}
	turnTokens := make([]int, len(sc.Messages))
	held := 0 // what the agent holds: its last context and the messages added since
	var addTime, ctxTime time.Duration
	for i, m := range sc.Messages {
		var added struct {
			Tokens int `json:"tokens"`
		}
		start := time.Now()
		err := call(ctx, tc, "memory_add_message", map[string]any{"conversation_id": conv.ID, "role": m.Speaker, "content": m.Text}, &added)
		addTime += time.Since(start)
		if err != nil {
			return r, fmt.Errorf("message %d: %w", i, err)
		}
		turnTokens[i] = added.Tokens
		held += added.Tokens
		r.Loop.Adds++
		if (i+1)%o.AnswerEvery != 0 {
			continue
		}
		var d convmemory.Decision
		if err := call(ctx, tc, "memory_should_compress", map[string]any{"conversation_id": conv.ID, "context_window": o.Window}, &d); err != nil {
			return r, fmt.Errorf("check after message %d: %w", i, err)
		}
		r.Loop.Checks++
		r.Loop.MaxHeld = max(r.Loop.MaxHeld, held)
		r.Loop.Threshold = d.ThresholdTokens
		if d.TargetTokens > 0 {
			r.Budget = d.TargetTokens
		}
		r.Loop.Drift = max(r.Loop.Drift, abs(d.CurrentTokens-held))
		if !d.ShouldCompress {
			continue
		}
		var c loopContext
		start = time.Now()
		if err := call(ctx, tc, "memory_get_context", map[string]any{"conversation_id": conv.ID, "context_window": o.Window}, &c); err != nil {
			return r, fmt.Errorf("context after message %d: %w", i, err)
		}
		ctxTime += time.Since(start)
		r.Loop.Compressions++
		held = c.Tokens
	}
	r.Load = addTime
	if addTime > 0 {
		r.Loop.AddsPerSecond = float64(r.Loop.Adds) / addTime.Seconds()
	}
	if r.Loop.Compressions > 0 {
		r.Loop.ContextTime = ctxTime / time.Duration(r.Loop.Compressions)
	}
	r.Tokens = sum(turnTokens)
	var c loopContext
	start := time.Now()
	if err := call(ctx, tc, "memory_get_context", map[string]any{"conversation_id": conv.ID, "context_window": o.Window, "budget_tokens": r.Budget}, &c); err != nil {
		return r, fmt.Errorf("final context: %w", err)
	}
	r.Compress = time.Since(start)
	r.Summaries = c.Summaries
	for _, it := range c.Items {
		r.Levels = max(r.Levels, it.Level)
	}
	r.Compressed = measure("compressed", sc.Facts, c.Text, c.Tokens)
	r.Kept = make([]bool, len(sc.Facts))
	for i, f := range sc.Facts {
		r.Kept[i] = f.In(c.Text)
	}
	r.Search = Arm{Name: "search top 10", Of: len(sc.Facts)}
	for _, f := range sc.Facts {
		var s struct {
			Hits []convmemory.Hit `json:"hits"`
		}
		if err := call(ctx, tc, "memory_search", map[string]any{"conversation_id": conv.ID, "query": f.Question, "k": 10}, &s); err != nil {
			return r, fmt.Errorf("search %q: %w", f.Question, err)
		}
		if foundIn(f, s.Hits) {
			r.Search.Facts++
		}
	}
	baselines(&r, sc, turnTokens)
	return r, nil
}

// loopContext is the part of memory_get_context's reply the loop reads.
type loopContext struct {
	Text      string `json:"text"`
	Tokens    int    `json:"tokens"`
	Summaries int    `json:"summaries"`
	Items     []struct {
		Level int `json:"level"`
	} `json:"items"`
}

// call calls a tool and decodes its structured result into out; a tool
// error is an error.
func call(ctx context.Context, tc ToolCaller, name string, args map[string]any, out any) error {
	res, err := tc.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		msg := ""
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				msg += t.Text
			}
		}
		return fmt.Errorf("%s: %s", name, msg)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s: reply %s: %w", name, b, err)
	}
	return nil
}

// foundIn reports whether a hit's text holds the fact.
func foundIn(f Fact, hits []convmemory.Hit) bool {
	for _, h := range hits {
		if f.In(h.Text) {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
