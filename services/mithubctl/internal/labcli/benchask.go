package labcli

import (
	"context"
	"flag"
	"os"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/services/mithubctl/internal/bench"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

type benchAskConfig struct {
	API        cmdline.APIConfig
	DataDir    string
	CPUProfile string
	Opts       bench.AskOptions
}

func benchAskCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "bench-ask",
		Summary: "measure the ask path over SSE: time to first token and context-build time under concurrent askers",
		Usage:   "mithub-lab bench-ask [--meetings 100] [--turns 500] [--askers 20] [--asks 1000] [--rate N] [--data-dir DIR]",
		Flags: func() *flag.FlagSet {
			var c benchAskConfig
			return benchAskFlags(&c)
		},
		Run: runBenchAsk,
	}
}

func benchAskFlags(c *benchAskConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("bench-ask")
	fs.IntVar(&c.Opts.Meetings, "meetings", 100, "meetings cached at once")
	fs.IntVar(&c.Opts.Turns, "turns", 500, "turns per meeting")
	fs.IntVar(&c.Opts.Askers, "askers", 20, "concurrent askers")
	fs.IntVar(&c.Opts.Asks, "asks", 1000, "questions asked in all")
	fs.Float64Var(&c.Opts.Rate, "rate", 0, "start asks at this many per second (0: each asker asks again on its answer)")
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "write this load generator's CPU profile of the asks to `file`")
	fs.StringVar(&c.DataDir, "data-dir", "", "QMSum directory (default $MITHUB_QMSUM_DIR or ../shared/data/qmsum)")
	c.API.Register(fs)
	return fs
}

func runBenchAsk(ctx context.Context, e *cmdline.Env, args []string) error {
	var c benchAskConfig
	if err := cmdline.ParseFlags(benchAskFlags(&c), args); err != nil {
		return err
	}
	if err := c.API.Resolve("bench-ask", e.Getenv); err != nil {
		return err
	}
	if c.DataDir == "" {
		dir, err := qmsum.DataDir()
		if err != nil {
			return err
		}
		c.DataDir = dir
	}
	if c.CPUProfile != "" {
		f, err := os.Create(c.CPUProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		c.Opts.Profile = f
	}
	c.Opts.DataDir, c.Opts.BaseURL, c.Opts.APIKey = c.DataDir, c.API.URL, c.API.Key
	return bench.Ask(ctx, c.API.Client(e), c.Opts, e.Stdout)
}
