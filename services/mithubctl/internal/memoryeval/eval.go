package memoryeval

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/tokens"
)

// Options configure a run.
type Options struct {
	// Store holds the conversations (a migrated PostgreSQL store).
	Store convmemory.Store
	// Corpus is the filler (see TrainCorpus).
	Corpus []qmsum.Turn
	// Sizes are the conversation sizes in tokens.
	Sizes []int
	// Window is the model window (default 32000); the context budget is
	// the memory's compression share of it (10%).
	Window int
	// Seed picks the filler offset, the facts' values and positions.
	Seed uint64
	// Bulk appends the turns straight to the store in batches instead of
	// one Service.AddMessage each (for 1M-token conversations).
	Bulk bool
}

// Arm is one context measured: facts it holds, of how many, and its size.
type Arm struct {
	Name   string `json:"name"`
	Facts  int    `json:"facts"`
	Of     int    `json:"of"`
	Tokens int    `json:"tokens"`
}

// Result is one scenario's measurement.
type Result struct {
	Size   int `json:"size"`
	Turns  int `json:"turns"`
	Tokens int `json:"tokens"`
	Budget int `json:"budget"`
	// Compressed is the memory's context at the budget; Recent the
	// newest turns that fit the same budget; Last10 the newest turns
	// holding 10% of the conversation's tokens; Whole the whole conversation (the ceiling).
	Compressed Arm `json:"compressed"`
	// Search counts the facts whose question, searched in the
	// conversation, has a hit holding the fact among the first 10.
	Search Arm `json:"search"`
	Recent Arm `json:"recent"`
	Last10 Arm `json:"last10"`
	Whole  Arm `json:"whole"`
	// Kept says, per planted fact, whether the compressed context holds it.
	Facts []Fact `json:"facts"`
	Kept  []bool `json:"kept"`
	// Summaries and Levels describe the compressed context.
	Summaries int `json:"summaries"`
	Levels    int `json:"levels"`
	// Load is the time to add the messages; Compress the time to
	// compress (local summarizer, in process).
	Load     time.Duration `json:"load_ns"`
	Compress time.Duration `json:"compress_ns"`
	// Loop is what RunLoop's agent loop saw; nil for Run.
	Loop *Loop `json:"loop,omitempty"`
}

// Run generates, loads (as the tenant's chat conversations), compresses
// and measures one scenario per size, writing a line per size to w.
func Run(ctx context.Context, tenantID string, o Options, w io.Writer) ([]Result, error) {
	if o.Window <= 0 {
		o.Window = 32_000
	}
	count, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		return nil, err
	}
	eng := convmemory.NewEngine(o.Store, count, convmemory.NewLocal(), convmemory.Config{ContextWindow: o.Window})
	svc := convmemory.NewService(eng, convmemory.NewInline(eng))
	var out []Result
	for _, size := range o.Sizes {
		r, err := runOne(ctx, svc, count, tenantID, o, size)
		if err != nil {
			return out, fmt.Errorf("eval-memory %d tokens: %w", size, err)
		}
		fmt.Fprintln(w, r.Line())
		out = append(out, r)
	}
	return out, nil
}

func runOne(ctx context.Context, svc *convmemory.Service, count tokens.Counter, tenantID string, o Options, size int) (Result, error) {
	sc, err := Generate(o.Corpus, size, o.Seed, count.Count)
	if err != nil {
		return Result{}, err
	}
	r := Result{Size: size, Turns: len(sc.Messages), Facts: sc.Facts, Budget: svc.TargetTokens(o.Window)}
	conv, err := svc.StartChat(ctx, tenantID, fmt.Sprintf("eval-memory %d tokens seed %d", size, o.Seed))
	if err != nil {
		return r, err
	}
	start := time.Now()
	turnTokens, err := load(ctx, svc, o, count, tenantID, conv.ID, sc.Messages)
	if err != nil {
		return r, err
	}
	r.Tokens = sum(turnTokens)
	r.Load = time.Since(start)
	start = time.Now()
	if _, err := svc.CompressToBudget(ctx, tenantID, conv.ID, r.Budget); err != nil {
		return r, err
	}
	c, err := svc.Context(ctx, tenantID, conv.ID, r.Budget)
	if err != nil {
		return r, err
	}
	r.Compress = time.Since(start)
	r.Summaries = c.Summaries
	for _, it := range c.Items {
		r.Levels = max(r.Levels, it.Level)
	}
	text := c.Text()
	r.Compressed = measure("compressed", sc.Facts, text, c.Tokens)
	r.Kept = make([]bool, len(sc.Facts))
	for i, f := range sc.Facts {
		r.Kept[i] = f.In(text)
	}
	r.Search = Arm{Name: "search top 10", Of: len(sc.Facts)}
	for _, f := range sc.Facts {
		hits, err := svc.Search(ctx, tenantID, conv.ID, f.Question, 10)
		if err != nil {
			return r, fmt.Errorf("search %q: %w", f.Question, err)
		}
		if foundIn(f, hits) {
			r.Search.Facts++
		}
	}
	baselines(&r, sc, turnTokens)
	return r, nil
}

// baselines measures the contexts r.Compressed is compared with: the
// newest turns within the budget, the turns of the last 10% of the
// tokens, and everything.
func baselines(r *Result, sc Scenario, turnTokens []int) {
	from, used := len(sc.Messages), 0
	for from > 0 && used+turnTokens[from-1] <= r.Budget {
		from--
		used += turnTokens[from]
	}
	r.Recent = measure("recent", sc.Facts, render(sc.Messages[from:]), used)
	from10, tail := len(sc.Messages), 0
	for from10 > 0 && tail < r.Tokens/10 {
		from10--
		tail += turnTokens[from10]
	}
	r.Last10 = measure("last10%", sc.Facts, render(sc.Messages[from10:]), sum(turnTokens[from10:]))
	r.Whole = measure("whole", sc.Facts, render(sc.Messages), r.Tokens)
}

// load adds the messages to the conversation and returns their token
// counts: through Service.AddMessage, or with o.Bulk appended to the
// store in batches, as level-0 nodes in the memory's turn format.
func load(ctx context.Context, svc *convmemory.Service, o Options, count tokens.Counter, tenantID, convID string, ms []Message) ([]int, error) {
	out := make([]int, len(ms))
	if !o.Bulk {
		for i, m := range ms {
			t, err := svc.AddMessage(ctx, tenantID, convID, m.Speaker, m.Text)
			if err != nil {
				return nil, err
			}
			out[i] = t.Tokens
		}
		return out, nil
	}
	batch := make([]conversation.NewNode, 0, 5000)
	for i, m := range ms {
		speaker := strings.Join(strings.Fields(m.Speaker), " ")
		out[i] = count.Count(speaker + ": " + m.Text)
		batch = append(batch, conversation.NewNode{Seq: i, Text: speaker + "\t" + m.Text, Tokens: out[i]})
		if len(batch) == cap(batch) || i == len(ms)-1 {
			if _, err := o.Store.AppendTurns(ctx, tenantID, convID, batch); err != nil {
				return nil, err
			}
			batch = batch[:0]
		}
	}
	return out, nil
}

func measure(name string, facts []Fact, text string, tokens int) Arm {
	a := Arm{Name: name, Of: len(facts), Tokens: tokens}
	for _, f := range facts {
		if f.In(text) {
			a.Facts++
		}
	}
	return a
}

func render(ms []Message) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.Speaker)
		b.WriteString(": ")
		b.WriteString(m.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// Line is the result on one line.
func (r Result) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "eval-memory %d tokens (%d turns), budget %d: ", r.Tokens, r.Turns, r.Budget)
	for _, a := range []Arm{r.Compressed, r.Recent, r.Last10, r.Whole} {
		fmt.Fprintf(&b, "%s %d/%d facts in %d tokens; ", a.Name, a.Facts, a.Of, a.Tokens)
	}
	fmt.Fprintf(&b, "search top 10 %d/%d facts; ", r.Search.Facts, r.Search.Of)
	fmt.Fprintf(&b, "compressed: %d summaries, top level %d, by part %s; load %s, compress %s",
		r.Summaries, r.Levels, r.byPart(), r.Load.Round(time.Millisecond), r.Compress.Round(time.Millisecond))
	if l := r.Loop; l != nil {
		fmt.Fprintf(&b, "; loop: %d adds at %.0f/s, %d checks, %d compressions (mean %s), held at most %d tokens (threshold %d), count drift %d",
			l.Adds, l.AddsPerSecond, l.Checks, l.Compressions, l.ContextTime.Round(time.Millisecond), l.MaxHeld, l.Threshold, l.Drift)
	}
	return b.String()
}

// byPart counts kept facts per part and language ("early 4/5 …, en 6/8 …").
func (r Result) byPart() string {
	kept, all := map[string]int{}, map[string]int{}
	for i, f := range r.Facts {
		for _, k := range []string{f.Part, f.Lang} {
			all[k]++
			if r.Kept[i] {
				kept[k]++
			}
		}
	}
	var parts []string
	for _, k := range []string{"early", "middle", "late", "en", "ko"} {
		parts = append(parts, fmt.Sprintf("%s %d/%d", k, kept[k], all[k]))
	}
	return strings.Join(parts, ", ")
}

// TrainCorpus returns the spoken turns of QMSum's train meetings under
// dir, meeting after meeting (the filler of the scenarios).
func TrainCorpus(dir string) ([]qmsum.Turn, error) { return qmsum.SpokenTurnsOf(dir, "train") }
