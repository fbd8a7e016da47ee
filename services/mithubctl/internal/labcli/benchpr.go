package labcli

import (
	"context"
	"flag"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/services/mithubctl/internal/bench"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

type benchPRConfig struct {
	API     cmdline.APIConfig
	DataDir string
	Opts    bench.PROptions
}

func benchPRCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "bench-pr",
		Summary: "measure generate-pr latency (no L1 wait) and pr:generate throughput through agent-api and pr-worker",
		Usage:   "mithub-lab bench-pr [--meetings 100] [--turns 500] [--timeout 30m] [--data-dir DIR]",
		Flags: func() *flag.FlagSet {
			var c benchPRConfig
			return benchPRFlags(&c)
		},
		Run: runBenchPR,
	}
}

func benchPRFlags(c *benchPRConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("bench-pr")
	fs.IntVar(&c.Opts.Meetings, "meetings", 100, "meetings that get a PR")
	fs.IntVar(&c.Opts.Turns, "turns", 500, "turns per meeting")
	fs.DurationVar(&c.Opts.Timeout, "timeout", 0, "bound on the wait for the worker (default 30m)")
	fs.StringVar(&c.DataDir, "data-dir", "", "QMSum directory (default $MITHUB_QMSUM_DIR or ../shared/data/qmsum)")
	c.API.Register(fs)
	return fs
}

func runBenchPR(ctx context.Context, e *cmdline.Env, args []string) error {
	var c benchPRConfig
	if err := cmdline.ParseFlags(benchPRFlags(&c), args); err != nil {
		return err
	}
	if c.Opts.Meetings < 1 || c.Opts.Turns < 1 {
		return cmdline.UsageErrorf("bench-pr", "--meetings and --turns must be positive")
	}
	if err := c.API.Resolve("bench-pr", e.Getenv); err != nil {
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
	_, err := bench.PR(ctx, c.API.Client(e), c.Opts, e.Stdout)
	return err
}
