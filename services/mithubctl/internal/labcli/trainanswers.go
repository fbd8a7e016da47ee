package labcli

import (
	"context"
	"flag"
	"fmt"

	"github.com/mithub/mithub/services/mithubctl/internal/answertrain"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/modelfile"
)

type trainAnswersConfig struct {
	Dir  string
	Out  string
	Opts answertrain.Options
}

func trainAnswersCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "train-answers",
		Summary: "learn the local provider's extractive answer model from QMSum specific queries (no services)",
		Usage:   "mithub-lab train-answers DIR [--out pkg/answer/answermodel.json] [--limit N] [--steps 3000] [--turns 20] [--rounds 3] [--cite-weight 0]",
		Flags: func() *flag.FlagSet {
			var c trainAnswersConfig
			return trainAnswersFlags(&c)
		},
		Run: runTrainAnswers,
	}
}

func trainAnswersFlags(c *trainAnswersConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("train-answers")
	fs.StringVar(&c.Out, "out", "", "write the model here (default: standard output)")
	fs.IntVar(&c.Opts.Limit, "limit", 0, "read at most N meetings (0: all)")
	fs.IntVar(&c.Opts.Steps, "steps", 3000, "gradient descent steps")
	fs.IntVar(&c.Opts.Turns, "turns", answertrain.DefaultTurns, "candidate turns per answer")
	fs.IntVar(&c.Opts.Rounds, "rounds", answertrain.DefaultRounds, "rounds of coordinate ascent on whole answers' ROUGE-1 after the regression (0: none)")
	fs.Float64Var(&c.Opts.CiteWeight, "cite-weight", 0, "R-1 points the tuning trades for each percentage point of answers citing a relevant turn (0: ROUGE-1 alone, the shipped model)")
	return fs
}

func runTrainAnswers(_ context.Context, e *cmdline.Env, args []string) error {
	var c trainAnswersConfig
	dir, err := parseDirAndFlags("train-answers", "train", trainAnswersFlags(&c), args)
	if err != nil {
		return err
	}
	c.Dir = dir
	if c.Opts.Limit < 0 || c.Opts.Steps < 1 || c.Opts.Turns < 1 || c.Opts.Turns > 100 || c.Opts.Rounds < 0 || c.Opts.CiteWeight < 0 {
		return cmdline.UsageErrorf("train-answers", "--limit >= 0, --steps >= 1, --turns 1..100, --rounds >= 0, --cite-weight >= 0")
	}
	if c.Opts.Rounds == 0 {
		c.Opts.Rounds = -1 // none
	}
	c.Opts.Progress = e.Stderr
	qs, err := answertrain.Load(c.Dir, c.Opts)
	if err != nil {
		return err
	}
	if len(qs) == 0 {
		return fmt.Errorf("no specific queries with relevant spans in %s", c.Dir)
	}
	b, err := modelfile.Marshal(answertrain.Train(qs, c.Opts))
	if err != nil {
		return err
	}
	return writeOut(e, c.Out, b)
}
