package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/mithub/mithub/services/mithubctl/internal/answertrain"
)

type trainAnswersConfig struct {
	Dir  string
	Out  string
	Opts answertrain.Options
}

func trainAnswersCommand() command {
	return command{
		name:    "train-answers",
		summary: "learn the local provider's extractive answer model from QMSum specific queries (no services)",
		usage:   "mithubctl train-answers DIR [--out pkg/ask/answermodel.json] [--limit N] [--steps 3000] [--turns 20]",
		flags: func() *flag.FlagSet {
			var c trainAnswersConfig
			return trainAnswersFlags(&c)
		},
		run: runTrainAnswers,
	}
}

func trainAnswersFlags(c *trainAnswersConfig) *flag.FlagSet {
	fs := newFlagSet("train-answers")
	fs.StringVar(&c.Out, "out", "", "write the model here (default: standard output)")
	fs.IntVar(&c.Opts.Limit, "limit", 0, "read at most N meetings (0: all)")
	fs.IntVar(&c.Opts.Steps, "steps", 3000, "gradient descent steps")
	fs.IntVar(&c.Opts.Turns, "turns", answertrain.DefaultTurns, "candidate turns per answer")
	return fs
}

func runTrainAnswers(_ context.Context, e *env, args []string) error {
	var c trainAnswersConfig
	dir, err := parseDirAndFlags("train-answers", "train", trainAnswersFlags(&c), args)
	if err != nil {
		return err
	}
	c.Dir = dir
	if c.Opts.Limit < 0 || c.Opts.Steps < 1 || c.Opts.Turns < 1 || c.Opts.Turns > 100 {
		return usageErrorf("train-answers", "--limit >= 0, --steps >= 1, --turns 1..100")
	}
	c.Opts.Progress = e.stderr
	qs, err := answertrain.Load(c.Dir, c.Opts)
	if err != nil {
		return err
	}
	if len(qs) == 0 {
		return fmt.Errorf("no specific queries with relevant spans in %s", c.Dir)
	}
	b, err := answertrain.Marshal(answertrain.Train(qs, c.Opts))
	if err != nil {
		return err
	}
	return writeOut(e, c.Out, b)
}
