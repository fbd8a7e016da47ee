package memoryeval_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/mithubctl/internal/agentapitest"
	"github.com/mithub/mithub/services/mithubctl/internal/memoryeval"
)

// TestCompressedContextKeepsPlantedFacts runs the 50K-token scenario and
// requires the compressed context, within its budget, to hold at least
// three quarters of the planted facts that the recent turns fitting the
// same budget and the last 10% of the conversation miss.
func TestCompressedContextKeepsPlantedFacts(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a 50K-token conversation")
	}
	corpus, err := memoryeval.TrainCorpus(qmsumtest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.New(t)
	ctx := context.Background()
	tenant, err := st.EnsureTenant(ctx, "eval-memory")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := memoryeval.Run(ctx, tenant.ID, memoryeval.Options{Store: st, Corpus: corpus, Sizes: []int{50_000}, Seed: 1}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if r.Whole.Facts != r.Whole.Of {
		t.Fatalf("the whole conversation holds %d of %d facts: the scenario lost some", r.Whole.Facts, r.Whole.Of)
	}
	if r.Compressed.Tokens > r.Budget {
		t.Errorf("compressed context %d tokens > budget %d", r.Compressed.Tokens, r.Budget)
	}
	baseline := max(r.Recent.Facts, r.Last10.Facts)
	// Clearly above: at least three quarters of the facts the baselines
	// miss (the goal is 12 of 15).
	want := baseline + (3*(r.Whole.Facts-baseline)+3)/4
	if r.Compressed.Facts < want {
		for i, f := range r.Facts {
			if !r.Kept[i] {
				t.Logf("lost (%s, %s): %s", f.Part, f.Lang, f.Text)
			}
		}
		t.Errorf("compressed context holds %d of %d facts, want at least %d (baselines: recent %d, last 10%% %d)",
			r.Compressed.Facts, r.Compressed.Of, want, r.Recent.Facts, r.Last10.Facts)
	}
}

func TestGeneratePlantsEveryFactOnce(t *testing.T) {
	corpus, err := memoryeval.TrainCorpus(qmsumtest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	words := func(s string) int { return len(s) / 4 }
	a, err := memoryeval.Generate(corpus, 20_000, 7, words)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := memoryeval.Generate(corpus, 20_000, 7, words)
	if len(a.Facts) != memoryeval.NumFacts || len(a.Messages) != len(b.Messages) || a.Facts[3].Text != b.Facts[3].Text {
		t.Fatalf("generation must be deterministic with %d facts", memoryeval.NumFacts)
	}
	parts, langs := map[string]int{}, map[string]int{}
	for _, f := range a.Facts {
		parts[f.Part]++
		langs[f.Lang]++
		if !f.In(a.Messages[f.Turn].Text) {
			t.Errorf("fact %q is not in turn %d", f.Text, f.Turn)
		}
	}
	if parts["early"] == 0 || parts["middle"] == 0 || parts["late"] == 0 || langs["en"] == 0 || langs["ko"] == 0 {
		t.Errorf("facts must spread over parts and languages: %v %v", parts, langs)
	}
}

// TestLoopThroughTheStdioServer plays a 20K-token scenario through a
// real `mithubctl mcp` process over stdio with an 8K window, as an agent
// following the documented loop does. Every message is stored, the loop
// compresses more than once, what memory_should_compress counts is
// exactly what the agent holds, the agent never holds much more than the
// threshold, and the final context and search find the facts the
// baselines miss.
func TestLoopThroughTheStdioServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mithubctl and plays a 20K-token conversation")
	}
	corpus, err := memoryeval.TrainCorpus(qmsumtest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := agentapitest.Build(t, "github.com/mithub/mithub/services/mithubctl/cmd/mithubctl")
	const window = 8000
	cmd := exec.Command(bin, "mcp", "--tenant", "eval-memory-loop-"+uuid.NewString(), "--database-url", storetest.DatabaseURL(t),
		"--state-dir", "none", "--window", strconv.Itoa(window))
	cmd.Env = append(os.Environ(), "MITHUB_LLM_PROVIDER=local")
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	rs, err := memoryeval.RunLoop(t.Context(), cs, memoryeval.LoopOptions{Corpus: corpus, Sizes: []int{20_000}, Window: window, Seed: 3}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	r, l := rs[0], rs[0].Loop
	var stats struct {
		Turns int `json:"turns"`
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "memory_get_stats", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("memory_get_stats: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &stats); err != nil {
		t.Fatal(err)
	}
	if l.Adds != r.Turns || stats.Turns != r.Turns {
		t.Errorf("%d messages, %d adds, %d stored turns: want all equal", r.Turns, l.Adds, stats.Turns)
	}
	if l.Compressions < 2 {
		t.Errorf("%d compressions of a 20K-token conversation in an 8K window, want at least 2", l.Compressions)
	}
	if l.Drift != 0 {
		t.Errorf("memory_should_compress counted up to %d tokens more or less than the agent held", l.Drift)
	}
	// Between two checks the agent adds two messages; no QMSum turn is
	// near 1,000 tokens.
	if l.MaxHeld > l.Threshold+2000 {
		t.Errorf("the agent held %d tokens, threshold %d: compression came late", l.MaxHeld, l.Threshold)
	}
	if r.Whole.Facts != r.Whole.Of {
		t.Fatalf("the whole conversation holds %d of %d facts", r.Whole.Facts, r.Whole.Of)
	}
	if r.Compressed.Tokens > r.Budget {
		t.Errorf("final context %d tokens > budget %d", r.Compressed.Tokens, r.Budget)
	}
	baseline := max(r.Recent.Facts, r.Last10.Facts)
	if r.Compressed.Facts <= baseline {
		t.Errorf("final context holds %d facts, baselines recent %d, last 10%% %d: want more", r.Compressed.Facts, r.Recent.Facts, r.Last10.Facts)
	}
	if r.Search.Facts < 12 {
		t.Errorf("search finds %d of %d facts by their questions, want at least 12", r.Search.Facts, r.Search.Of)
	}
}
