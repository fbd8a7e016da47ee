package labcli

import (
	"context"
	"flag"
	"strings"

	"github.com/mithub/mithub/services/mithubctl/internal/agendaeval"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

type evalPRConfig struct {
	Dir      string
	Meetings string
	Opts     agendaeval.Options
}

func evalPRCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "eval-pr",
		Summary: "score the PR agenda (local provider, no services) against QMSum's annotated topics by keyword overlap",
		Usage:   "mithub-lab eval-pr DIR [--limit 5] [--meetings Bed002,ES2006a] [--min-shared 1] [--max-decisions 5]",
		Flags: func() *flag.FlagSet {
			var c evalPRConfig
			return evalPRFlags(&c)
		},
		Run: runEvalPR,
	}
}

func evalPRFlags(c *evalPRConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("eval-pr")
	fs.IntVar(&c.Opts.Limit, "limit", 5, "meetings to take from DIR in name order, when --meetings is not given")
	fs.StringVar(&c.Meetings, "meetings", "", "comma-separated meeting names to use instead")
	fs.IntVar(&c.Opts.MinShared, "min-shared", 1, "keywords an agenda item must share with a topic to match it")
	fs.IntVar(&c.Opts.MaxDecisions, "max-decisions", 0, "cap on decisions per meeting (0: the extractor default)")
	return fs
}

// runEvalPR takes the directory first, then flags.
func runEvalPR(ctx context.Context, e *cmdline.Env, args []string) error {
	var c evalPRConfig
	dir, err := parseDirAndFlags("eval-pr", "val", evalPRFlags(&c), args)
	if err != nil {
		return err
	}
	c.Dir = dir
	if c.Opts.Limit < 1 || c.Opts.MinShared < 1 {
		return cmdline.UsageErrorf("eval-pr", "--limit and --min-shared must be at least 1")
	}
	for _, m := range strings.Split(c.Meetings, ",") {
		if m = strings.TrimSpace(m); m != "" {
			c.Opts.Meetings = append(c.Opts.Meetings, m)
		}
	}
	c.Opts.Progress = e.Stderr
	rep, err := agendaeval.Run(ctx, c.Dir, c.Opts)
	if len(rep.Meetings) > 0 {
		rep.Markdown(e.Stdout)
	}
	return err
}
