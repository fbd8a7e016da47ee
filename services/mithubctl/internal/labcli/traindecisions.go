package labcli

import (
	"context"
	"flag"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/decisiontrain"
	"github.com/mithub/mithub/services/mithubctl/internal/modelfile"
)

type trainDecisionsConfig struct {
	Dir string
	Out string
}

func trainDecisionsCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "train-decisions",
		Summary: "learn the local PR extractor's decision scorer from QMSum specific queries about decisions",
		Usage:   "mithub-lab train-decisions DIR [--out pkg/prdoc/decision_model.json]",
		Flags: func() *flag.FlagSet {
			var c trainDecisionsConfig
			return trainDecisionsFlags(&c)
		},
		Run: runTrainDecisions,
	}
}

func trainDecisionsFlags(c *trainDecisionsConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("train-decisions")
	fs.StringVar(&c.Out, "out", "", "write the model here (default: standard output)")
	return fs
}

func runTrainDecisions(ctx context.Context, e *cmdline.Env, args []string) error {
	var c trainDecisionsConfig
	dir, err := parseDirAndFlags("train-decisions", "train", trainDecisionsFlags(&c), args)
	if err != nil {
		return err
	}
	c.Dir = dir
	d, err := decisiontrain.Load(ctx, c.Dir, e.Stderr)
	if err != nil {
		return err
	}
	b, err := modelfile.Marshal(decisiontrain.Train(d, "QMSum train"))
	if err != nil {
		return err
	}
	return writeOut(e, c.Out, b)
}
