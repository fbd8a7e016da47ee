package cli

import (
	"context"
	"flag"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/services/mithubctl/internal/bench"
)

type benchPRConfig struct {
	API     apiConfig
	DataDir string
	Opts    bench.PROptions
}

func benchPRCommand() command {
	return command{
		name:    "bench-pr",
		summary: "measure generate-pr latency (no L1 wait) and pr:generate throughput through agent-api and pr-worker",
		usage:   "mithubctl bench-pr [--meetings 100] [--turns 500] [--timeout 30m] [--data-dir DIR]",
		flags: func() *flag.FlagSet {
			var c benchPRConfig
			return benchPRFlags(&c)
		},
		run: runBenchPR,
	}
}

func benchPRFlags(c *benchPRConfig) *flag.FlagSet {
	fs := newFlagSet("bench-pr")
	fs.IntVar(&c.Opts.Meetings, "meetings", 100, "meetings that get a PR")
	fs.IntVar(&c.Opts.Turns, "turns", 500, "turns per meeting")
	fs.DurationVar(&c.Opts.Timeout, "timeout", 0, "bound on the wait for the worker (default 30m)")
	fs.StringVar(&c.DataDir, "data-dir", "", "QMSum directory (default $MITHUB_QMSUM_DIR or ../shared/data/qmsum)")
	c.API.register(fs)
	return fs
}

func runBenchPR(ctx context.Context, e *env, args []string) error {
	var c benchPRConfig
	if err := parseFlags(benchPRFlags(&c), args); err != nil {
		return err
	}
	if c.Opts.Meetings < 1 || c.Opts.Turns < 1 {
		return usageErrorf("bench-pr", "--meetings and --turns must be positive")
	}
	if err := c.API.resolve("bench-pr", e.getenv); err != nil {
		return err
	}
	if c.DataDir == "" {
		dir, err := qmsum.DataDir()
		if err != nil {
			return err
		}
		c.DataDir = dir
	}
	c.Opts.DataDir = c.DataDir
	_, err := bench.PR(ctx, c.API.client(e.stderr), c.Opts, e.stdout)
	return err
}
