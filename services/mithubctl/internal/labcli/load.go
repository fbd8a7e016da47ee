package labcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/load"
)

type loadConfig struct {
	API         cmdline.APIConfig
	Opts        load.Options
	Rate        string
	Procs       procsFlag
	DatabaseURL string
	Out         string
	Summary     string
	// MaxErrors fails the run above this many failed requests (-1: any).
	MaxErrors int
	// MaxRSSGrowth fails the run when a process grew more than this many
	// percent after the warm-up (0: no bound).
	MaxRSSGrowth float64
}

func loadCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "load",
		Summary: "drive agent-api with N concurrent meetings (utterances, asks, PRs); latency per endpoint, errors, RSS, completeness",
		Usage: "mithub-lab load [--meetings 10] [--rate 2s|0.5] [--duration 1m] [--warmup 0] [--ask-every 0] [--pr-every 0] [--pr-at-end] [--meeting-length 0] [--data-dir D | --meeting-file F] " +
			"[--proc name=pid,...] [--database-url URL] [--out report.md] [--summary F] [--marks F] [--status F]",
		Flags: func() *flag.FlagSet {
			var c loadConfig
			return loadFlags(&c)
		},
		Run: runLoad,
	}
}

// procsFlag collects --proc/--pids values.
type procsFlag []load.Proc

func (p *procsFlag) String() string { return "" }

func (p *procsFlag) Set(s string) error {
	ps, err := load.ParseProcs(s)
	if err != nil {
		return err
	}
	*p = append(*p, ps...)
	return nil
}

func loadFlags(c *loadConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("load")
	o := &c.Opts
	fs.IntVar(&o.Meetings, "meetings", load.DefaultMeetings, "concurrent meetings")
	fs.StringVar(&c.Rate, "rate", "2s", "utterances per meeting: per second (0.5) or the interval between two (2s)")
	fs.DurationVar(&o.Duration, "duration", load.DefaultDuration, "how long utterances are sent")
	fs.DurationVar(&o.Warmup, "warmup", 0, "start of the run whose RSS growth does not count")
	fs.DurationVar(&o.AskEvery, "ask-every", 0, "time between two questions of one meeting (0: none)")
	fs.DurationVar(&o.PREvery, "pr-every", 0, "time between two generate-pr calls of one meeting while it runs (0: none)")
	fs.BoolVar(&o.PRAtEnd, "pr-at-end", false, "end every meeting after the run and build its PR (with --meeting-length, also each meeting that ends during it)")
	fs.IntVar(&o.MeetingLength, "meeting-length", 0, "end a meeting after this many utterances and start a new one in its slot (0: one meeting per slot)")
	fs.IntVar(&o.KoreanEvery, "korean-every", load.DefaultKoreanEvery, "every n-th utterance and question is Korean (-1: none)")
	fs.Var(&c.Procs, "proc", "processes to sample RSS of: name=pid[,name=pid] (repeatable)")
	fs.Var(&c.Procs, "pids", "same as --proc")
	fs.DurationVar(&o.RSSEvery, "rss-every", load.DefaultRSSEvery, "RSS sampling interval")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", load.DefaultRequestTimeout, "bound on one request (asks: twice this)")
	fs.DurationVar(&o.SettleTimeout, "settle-timeout", load.DefaultSettleTimeout, "bound on delivering the rest, ending meetings and waiting for PRs after the run")
	fs.StringVar(&o.Label, "label", "load", "prefix of meeting titles and room names")
	fs.StringVar(&o.DataDir, "data-dir", "", "QMSum directory whose val meetings supply the text (default $MITHUB_QMSUM_DIR or ../shared/data/qmsum)")
	fs.StringVar(&o.MeetingFile, "meeting-file", "", "one meeting supplies the text instead: QMSum .json or .jsonl (e.g. examples/meetings/launch-review.jsonl)")
	fs.StringVar(&c.DatabaseURL, "database-url", "", "PostgreSQL of the API: compare segment ids and PR rows there (default: the API's counters)")
	fs.StringVar(&c.Out, "out", "", "also write the Markdown report to this file")
	fs.StringVar(&c.Summary, "summary", "", "write key=value results to this file (for scripts)")
	fs.StringVar(&o.MarksFile, "marks", "", "file with 'fault_start <unix ms>' and 'fault_end <unix ms>' lines, read at the end")
	fs.StringVar(&o.StatusFile, "status", "", "file rewritten every second with phase, acked, ok, errors")
	fs.IntVar(&c.MaxErrors, "max-errors", -1, "fail when more requests than this failed (-1: no bound)")
	fs.Float64Var(&c.MaxRSSGrowth, "max-rss-growth", 0, "fail when a process's RSS grew more than this percentage after the warm-up (0: no bound)")
	c.API.Register(fs)
	return fs
}

func parseLoad(args []string, getenv func(string) string) (loadConfig, error) {
	var c loadConfig
	if err := cmdline.ParseFlags(loadFlags(&c), args); err != nil {
		return c, err
	}
	interval, err := load.ParseRate(c.Rate)
	if err != nil {
		return c, cmdline.UsageErrorf("load", "--%v", err)
	}
	c.Opts.Interval = interval
	c.Opts.Procs = c.Procs
	if err := c.API.Resolve("load", getenv); err != nil {
		return c, err
	}
	if c.Opts.DataDir == "" && c.Opts.MeetingFile == "" {
		if dir := getenv("MITHUB_QMSUM_DIR"); dir != "" {
			c.Opts.DataDir = dir
		} else if dir, err := qmsum.DataDir(); err == nil {
			c.Opts.DataDir = dir
		} else {
			return c, cmdline.UsageErrorf("load", "%v; or give --meeting-file (e.g. examples/meetings/launch-review.jsonl)", err)
		}
	}
	if err := c.Opts.Validate(); err != nil {
		return c, cmdline.UsageErrorf("load", "%v", err)
	}
	return c, nil
}

func runLoad(ctx context.Context, e *cmdline.Env, args []string) error {
	c, err := parseLoad(args, e.Getenv)
	if err != nil {
		return err
	}
	conns := 2*c.Opts.Meetings + 16
	api := apiclient.New(c.API.URL, c.API.Key, apiclient.WithUserAgent(e.UserAgent()),
		apiclient.WithRetryPolicy(apiclient.NoRetry()),
		apiclient.WithHTTPClient(&http.Client{Transport: &http.Transport{
			MaxIdleConns: conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: 90 * time.Second,
		}}))
	var st load.Store
	if c.DatabaseURL != "" {
		s, err := load.OpenStore(ctx, c.DatabaseURL, c.API.Key, store.Options{})
		if err != nil {
			return fmt.Errorf("--database-url: %w", err)
		}
		defer s.Close()
		st = s
	}
	rep, err := load.Run(ctx, api, st, c.Opts, e.Stderr)
	if rep == nil {
		return err
	}
	if werr := writeLoadReport(e.Stdout, rep, c); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	return loadVerdict(rep, c)
}

func writeLoadReport(stdout io.Writer, rep *load.Report, c loadConfig) error {
	if err := rep.WriteMarkdown(stdout); err != nil {
		return err
	}
	write := func(path string, fn func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if err := write(c.Out, rep.WriteMarkdown); err != nil {
		return err
	}
	return write(c.Summary, rep.WriteSummary)
}

// loadVerdict fails a run that lost or doubled something or broke a bound.
func loadVerdict(rep *load.Report, c loadConfig) error {
	var fails []string
	if !rep.Completeness.OK() {
		fails = append(fails, "completeness check failed")
	}
	if n := rep.Errors(); c.MaxErrors >= 0 && n > c.MaxErrors {
		fails = append(fails, fmt.Sprintf("%d failed requests (at most %d allowed)", n, c.MaxErrors))
	}
	if c.MaxRSSGrowth > 0 {
		for _, s := range rep.RSS {
			if _, _, g, ok := s.Growth(c.Opts.Warmup, rep.RSSTrafficEnd); ok && 100*g > c.MaxRSSGrowth {
				fails = append(fails, fmt.Sprintf("%s RSS grew %.1f%% after the warm-up (at most %.1f%%)", s.Proc.Name, 100*g, c.MaxRSSGrowth))
			}
		}
	}
	if len(fails) > 0 {
		return errors.New("load: " + strings.Join(fails, "; "))
	}
	return nil
}
