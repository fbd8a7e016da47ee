package labcli

import (
	"context"
	"flag"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/headingtrain"
	"github.com/mithub/mithub/services/mithubctl/internal/modelfile"
)

type trainHeadingsConfig struct {
	Dir string
	Out string
}

func trainHeadingsCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "train-headings",
		Summary: "learn the agenda headings' word weights from QMSum annotated topic names",
		Usage:   "mithub-lab train-headings DIR [--out pkg/prdoc/headingwords.json]",
		Flags: func() *flag.FlagSet {
			var c trainHeadingsConfig
			return trainHeadingsFlags(&c)
		},
		Run: runTrainHeadings,
	}
}

func trainHeadingsFlags(c *trainHeadingsConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("train-headings")
	fs.StringVar(&c.Out, "out", "", "write the model here (default: standard output)")
	return fs
}

func runTrainHeadings(ctx context.Context, e *cmdline.Env, args []string) error {
	var c trainHeadingsConfig
	dir, err := parseDirAndFlags("train-headings", "train", trainHeadingsFlags(&c), args)
	if err != nil {
		return err
	}
	c.Dir = dir
	ex, err := headingtrain.Load(ctx, c.Dir, e.Stderr)
	if err != nil {
		return err
	}
	b, err := modelfile.Marshal(headingtrain.Train(ex, "QMSum train"))
	if err != nil {
		return err
	}
	return writeOut(e, c.Out, b)
}
