package labcli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/modelfile"
	"github.com/mithub/mithub/services/mithubctl/internal/turntrain"
)

type trainRetrievalConfig struct {
	Dir    string
	Out    string
	Rounds int
	Opts   turntrain.Options
}

func trainRetrievalCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "train-retrieval",
		Summary: "learn turn search's fusion weights from QMSum specific queries (local provider, no services)",
		Usage:   "mithub-lab train-retrieval DIR [--out pkg/meetingctx/turnweights.json] [--limit N] [--window 3] [--rounds 6] [--query-stopwords]",
		Flags: func() *flag.FlagSet {
			var c trainRetrievalConfig
			return trainRetrievalFlags(&c)
		},
		Run: runTrainRetrieval,
	}
}

func trainRetrievalFlags(c *trainRetrievalConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("train-retrieval")
	fs.StringVar(&c.Out, "out", "", "write the weights here (default: standard output)")
	fs.IntVar(&c.Opts.Limit, "limit", 0, "read at most N meetings (0: all)")
	fs.IntVar(&c.Opts.Window, "window", 3, "half-width in turns of the context features")
	fs.IntVar(&c.Rounds, "rounds", 6, "coordinate ascent rounds at most")
	fs.BoolVar(&c.Opts.QueryStopwords, "query-stopwords", false, "learn question words to drop from queries before BM25")
	return fs
}

func runTrainRetrieval(ctx context.Context, e *cmdline.Env, args []string) error {
	var c trainRetrievalConfig
	dir, err := parseDirAndFlags("train-retrieval", "train", trainRetrievalFlags(&c), args)
	if err != nil {
		return err
	}
	c.Dir = dir
	if c.Opts.Limit < 0 || c.Opts.Window < 1 || c.Opts.Window > 50 || c.Rounds < 1 {
		return cmdline.UsageErrorf("train-retrieval", "--limit >= 0, --window 1..50, --rounds >= 1")
	}
	c.Opts.Progress = e.Stderr
	qs, st, err := turntrain.Load(ctx, c.Dir, c.Opts)
	if err != nil {
		return err
	}
	if len(qs) == 0 {
		return fmt.Errorf("no specific queries with relevant spans in %s", c.Dir)
	}
	w := turntrain.Train(qs, c.Rounds, e.Stderr)
	b, err := modelfile.Marshal(meetingctx.TurnWeights{Window: st.Window, QueryStop: st.QueryStop}.WithVector(w))
	if err != nil {
		return err
	}
	return writeOut(e, c.Out, b)
}

// parseDirAndFlags reads the command line of a command that takes a
// QMSum directory (an example split named in the error) then flags;
// flags alone (such as -h) are parsed first so they answer as usual.
func parseDirAndFlags(name, split string, fs *flag.FlagSet, args []string) (string, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if err := cmdline.ParseFlags(fs, args); err != nil {
			return "", err
		}
		return "", cmdline.UsageErrorf(name, "a QMSum directory is required, e.g. ../shared/data/qmsum/%s", split)
	}
	return args[0], cmdline.ParseFlags(fs, args[1:])
}

// writeOut writes a trained model to path, or to standard output when
// path is empty.
func writeOut(e *cmdline.Env, path string, b []byte) error {
	if path == "" {
		_, err := e.Stdout.Write(b)
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
