package cli

import (
	"context"
	"flag"
	"os"

	"github.com/mithub/mithub/services/mithubctl/internal/decisiontrain"
)

type trainDecisionsConfig struct {
	Dir string
	Out string
}

func trainDecisionsCommand() command {
	return command{
		name:    "train-decisions",
		summary: "learn the local PR extractor's decision scorer from QMSum specific queries about decisions",
		usage:   "mithubctl train-decisions DIR [--out pkg/prdoc/decision_model.json]",
		flags: func() *flag.FlagSet {
			var c trainDecisionsConfig
			return trainDecisionsFlags(&c)
		},
		run: runTrainDecisions,
	}
}

func trainDecisionsFlags(c *trainDecisionsConfig) *flag.FlagSet {
	fs := newFlagSet("train-decisions")
	fs.StringVar(&c.Out, "out", "", "write the model here (default: standard output)")
	return fs
}

func runTrainDecisions(ctx context.Context, e *env, args []string) error {
	var c trainDecisionsConfig
	if len(args) == 0 || len(args[0]) > 0 && args[0][0] == '-' {
		if err := parseFlags(trainDecisionsFlags(&c), args); err != nil {
			return err
		}
		return usageErrorf("train-decisions", "a QMSum directory is required, e.g. ../shared/data/qmsum/train")
	}
	c.Dir = args[0]
	if err := parseFlags(trainDecisionsFlags(&c), args[1:]); err != nil {
		return err
	}
	d, err := decisiontrain.Load(ctx, c.Dir, e.stderr)
	if err != nil {
		return err
	}
	b, err := decisiontrain.Marshal(decisiontrain.Train(d, "QMSum train"))
	if err != nil {
		return err
	}
	if c.Out == "" {
		_, err = e.stdout.Write(b)
		return err
	}
	return os.WriteFile(c.Out, b, 0o644)
}
