package labcli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/eval"
)

type evalConfig struct {
	API  cmdline.APIConfig
	Dir  string
	JSON string
	Opts eval.Options
}

func evalCommand() cmdline.Command {
	return cmdline.Command{
		Name: "eval",
		Summary: "replay QMSum meetings through agent-api; score topics (Pk, WindowDiff, boundary F1) and turn search (recall@5/10/20, MRR) beside baselines; " +
			"DIR defaults to $MITHUB_QMSUM_DIR/val",
		Usage: "mithub-lab eval [DIR] [--limit N] [--batch 100] [--settle 5m] [--json tmp/eval.json]",
		Flags: func() *flag.FlagSet {
			var c evalConfig
			return evalFlags(&c)
		},
		Run: runEval,
	}
}

func evalFlags(c *evalConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("eval")
	fs.IntVar(&c.Opts.Limit, "limit", 0, "evaluate at most N meetings (0: all)")
	fs.IntVar(&c.Opts.Batch, "batch", 100, "utterances per request")
	fs.DurationVar(&c.Opts.Settle, "settle", 5*time.Minute, "how long a meeting may stay pending after it ends before the run fails")
	fs.StringVar(&c.JSON, "json", "tmp/eval.json", "write the report as JSON here (empty: do not)")
	c.API.Register(fs)
	return fs
}

// runEval takes the directory first (optional), then flags.
func runEval(ctx context.Context, e *cmdline.Env, args []string) error {
	var c evalConfig
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		c.Dir, args = args[0], args[1:]
	}
	if err := cmdline.ParseFlags(evalFlags(&c), args); err != nil {
		return err
	}
	if c.Dir == "" {
		data := e.Getenv("MITHUB_QMSUM_DIR")
		if data == "" {
			data = "../shared/data/qmsum"
		}
		c.Dir = filepath.Join(data, "val")
		if _, err := os.Stat(c.Dir); err != nil {
			return cmdline.UsageErrorf("eval", "no QMSum val meetings in %s: set MITHUB_QMSUM_DIR to the QMSum data directory, or pass DIR", c.Dir)
		}
	}
	if c.Opts.Batch < 1 || c.Opts.Batch > 500 || c.Opts.Limit < 0 || c.Opts.Settle <= 0 {
		return cmdline.UsageErrorf("eval", "--batch must be 1..500, --limit >= 0, --settle > 0")
	}
	if err := c.API.Resolve("eval", e.Getenv); err != nil {
		return err
	}
	c.Opts.Progress = e.Stderr
	rep, err := eval.Run(ctx, c.API.Client(e), c.Dir, c.Opts)
	if err != nil {
		// No figures from a partial or degenerate run.
		return fmt.Errorf("eval failed after %d meetings, no figures reported: %w", len(rep.Meetings), err)
	}
	rep.Markdown(e.Stdout)
	if c.JSON != "" {
		if err := os.MkdirAll(filepath.Dir(c.JSON), 0o755); err != nil {
			return err
		}
		f, err := os.Create(c.JSON)
		if err != nil {
			return err
		}
		if err := rep.JSON(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "report written to %s\n", c.JSON)
	}
	return nil
}
