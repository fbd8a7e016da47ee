package labcli

import (
	"context"
	"flag"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/services/mithubctl/internal/bench"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

type benchContextConfig struct {
	DatabaseURL string
	DataDir     string
	Opts        bench.ContextOptions
}

func benchContextCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "bench-context",
		Summary: "measure the context engine (local provider): update, L1 chunk, search latencies and heap per meeting",
		Usage:   "mithub-lab bench-context [--meetings 50] [--topics 10000] [--topic-meetings 200] [--database-url URL] [--data-dir DIR]",
		Flags: func() *flag.FlagSet {
			var c benchContextConfig
			return benchContextFlags(&c)
		},
		Run: runBenchContext,
	}
}

func benchContextFlags(c *benchContextConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("bench-context")
	fs.IntVar(&c.Opts.Meetings, "meetings", 50, "cached meetings for the heap measurement")
	fs.IntVar(&c.Opts.TopicsTotal, "topics", 10_000, "topics stored for cross-meeting search")
	fs.IntVar(&c.Opts.TopicMeetings, "topic-meetings", 200, "meetings the stored topics belong to")
	fs.StringVar(&c.Opts.Tenant, "tenant", "bench", "tenant owning the stored topics")
	fs.StringVar(&c.DatabaseURL, "database-url", "", "PostgreSQL for cross-meeting search (default: skip it)")
	fs.StringVar(&c.DataDir, "data-dir", "", "QMSum directory (default $MITHUB_QMSUM_DIR or ../shared/data/qmsum)")
	return fs
}

func runBenchContext(ctx context.Context, e *cmdline.Env, args []string) error {
	var c benchContextConfig
	if err := cmdline.ParseFlags(benchContextFlags(&c), args); err != nil {
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
	if c.DatabaseURL != "" {
		st, err := cmdline.OpenMigratedStore(ctx, c.DatabaseURL)
		if err != nil {
			return err
		}
		defer st.Close()
		c.Opts.Store = st
	}
	return bench.Context(ctx, c.Opts, e.Stdout)
}
