package cli

import (
	"context"
	"flag"

	"github.com/mithub/mithub/services/mithubctl/internal/eval"
)

type evalConfig struct {
	API  apiConfig
	Dir  string
	Opts eval.Options
}

func evalCommand() command {
	return command{
		name:    "eval",
		summary: "replay QMSum meetings through agent-api and score topics (Pk, WindowDiff) and search (recall@k)",
		usage:   "mithubctl eval DIR [--limit N] [--k 5] [--batch 100]",
		flags: func() *flag.FlagSet {
			var c evalConfig
			return evalFlags(&c)
		},
		run: runEval,
	}
}

func evalFlags(c *evalConfig) *flag.FlagSet {
	fs := newFlagSet("eval")
	fs.IntVar(&c.Opts.Limit, "limit", 0, "evaluate at most N meetings (0: all)")
	fs.IntVar(&c.Opts.K, "k", 5, "search results a query may be found in")
	fs.IntVar(&c.Opts.Batch, "batch", 100, "utterances per request")
	c.API.register(fs)
	return fs
}

// runEval takes the directory first, then flags.
func runEval(ctx context.Context, e *env, args []string) error {
	var c evalConfig
	if len(args) == 0 || len(args[0]) > 0 && args[0][0] == '-' {
		if err := parseFlags(evalFlags(&c), args); err != nil {
			return err
		}
		return usageErrorf("eval", "a QMSum directory is required, e.g. ../shared/data/qmsum/val")
	}
	c.Dir = args[0]
	if err := parseFlags(evalFlags(&c), args[1:]); err != nil {
		return err
	}
	if c.Opts.K < 1 || c.Opts.K > 50 || c.Opts.Batch < 1 || c.Opts.Batch > 500 || c.Opts.Limit < 0 {
		return usageErrorf("eval", "--k must be 1..50, --batch 1..500, --limit >= 0")
	}
	if err := c.API.resolve("eval", e.getenv); err != nil {
		return err
	}
	c.Opts.Progress = e.stderr
	rep, err := eval.Run(ctx, c.API.client(e.stderr), c.Dir, c.Opts)
	if len(rep.Meetings) > 0 {
		rep.Markdown(e.stdout, c.Opts.K)
	}
	return err
}
