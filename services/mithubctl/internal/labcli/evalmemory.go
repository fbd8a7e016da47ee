package labcli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/memoryeval"
)

type evalMemoryConfig struct {
	DatabaseURL string
	DataDir     string
	Sizes       string
	Window      int
	Seed        uint64
	Tenant      string
	JSON        bool
	Bulk        bool
	// MCP is the mithubctl binary whose `mcp` server the agent loop
	// drives over stdio ("" : the memory in process).
	MCP string
}

func evalMemoryCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "eval-memory",
		Summary: "plant 15 facts (Korean and English) in long QMSum conversations, compress to 10% of the window, count the facts the context keeps beside recent, last-10% and whole-conversation baselines",
		Usage:   "mithub-lab eval-memory [--sizes 50000,150000] [--window 32000] [--seed 1] [--bulk | --mcp MITHUBCTL] [--json]",
		Flags: func() *flag.FlagSet {
			var c evalMemoryConfig
			return evalMemoryFlags(&c)
		},
		Run: runEvalMemory,
	}
}

func evalMemoryFlags(c *evalMemoryConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("eval-memory")
	fs.StringVar(&c.Sizes, "sizes", "50000,150000", "conversation sizes in tokens, comma separated")
	fs.IntVar(&c.Window, "window", 32_000, "model context window; the context budget is 10% of it")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the filler offset and of the facts' values and positions")
	fs.StringVar(&c.Tenant, "tenant", "eval-memory", "tenant owning the scenario conversations")
	fs.StringVar(&c.DatabaseURL, "database-url", "", "PostgreSQL URL (default $"+cmdline.EnvDatabaseURL+" or "+cmdline.DefaultDatabaseURL+")")
	fs.StringVar(&c.DataDir, "data-dir", "", "QMSum directory (default $MITHUB_QMSUM_DIR or ../shared/data/qmsum)")
	fs.BoolVar(&c.Bulk, "bulk", false, "append the turns to the store in batches instead of one AddMessage each (fast; for 1M tokens)")
	fs.StringVar(&c.MCP, "mcp", "", "play the MCP loop (add each message, memory_should_compress before each answer, memory_get_context when it says yes) through `MITHUBCTL mcp` over stdio instead of in process")
	fs.BoolVar(&c.JSON, "json", false, "print the results as JSON")
	return fs
}

func runEvalMemory(ctx context.Context, e *cmdline.Env, args []string) error {
	var c evalMemoryConfig
	if err := cmdline.ParseFlags(evalMemoryFlags(&c), args); err != nil {
		return err
	}
	o := memoryeval.Options{Window: c.Window, Seed: c.Seed, Bulk: c.Bulk}
	for _, s := range strings.Split(c.Sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 5000 {
			return cmdline.UsageErrorf("eval-memory", "--sizes: %q is not a token count of at least 5000", s)
		}
		o.Sizes = append(o.Sizes, n)
	}
	if c.MCP != "" && c.Bulk {
		return cmdline.UsageErrorf("eval-memory", "--bulk loads the store directly; the --mcp loop adds every message through the server")
	}
	if c.Window < 1000 {
		return cmdline.UsageErrorf("eval-memory", "--window must be at least 1000")
	}
	if c.DataDir == "" {
		dir, err := qmsum.DataDir()
		if err != nil {
			return err
		}
		c.DataDir = dir
	}
	corpus, err := memoryeval.TrainCorpus(c.DataDir)
	if err != nil {
		return err
	}
	o.Corpus = corpus
	c.DatabaseURL = cmdline.Setting(c.DatabaseURL, e.Getenv, cmdline.EnvDatabaseURL, cmdline.DefaultDatabaseURL)
	st, err := cmdline.OpenMigratedStore(ctx, c.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	o.Store = st
	tenant, err := st.EnsureTenant(ctx, c.Tenant)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Hour)
	defer cancel()
	out := e.Stdout
	if c.JSON {
		out = e.Stderr
	}
	var res []memoryeval.Result
	if c.MCP != "" {
		res, err = runEvalMemoryLoop(ctx, e, c, o, out)
	} else {
		res, err = memoryeval.Run(ctx, tenant.ID, o, out)
	}
	if err != nil {
		return err
	}
	if c.JSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return nil
}

// runEvalMemoryLoop starts `c.MCP mcp` on the tenant's memory and plays
// the scenarios through it.
func runEvalMemoryLoop(ctx context.Context, e *cmdline.Env, c evalMemoryConfig, o memoryeval.Options, out io.Writer) ([]memoryeval.Result, error) {
	cmd := exec.CommandContext(ctx, c.MCP, "mcp", "--tenant", c.Tenant, "--database-url", c.DatabaseURL,
		"--state-dir", "none", "--window", strconv.Itoa(c.Window))
	cmd.Stderr = e.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mithub-lab eval-memory", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("eval-memory: start %s mcp: %w", c.MCP, err)
	}
	defer cs.Close()
	return memoryeval.RunLoop(ctx, cs, memoryeval.LoopOptions{Corpus: o.Corpus, Sizes: o.Sizes, Window: o.Window, Seed: o.Seed}, out)
}
