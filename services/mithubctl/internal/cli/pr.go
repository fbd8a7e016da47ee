package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// prConfig is the parsed pr command line.
type prConfig struct {
	API       cmdline.APIConfig
	MeetingID string
	Wait      time.Duration
}

func prCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "pr",
		Summary: "generate a meeting's PR (agenda, decisions, action items), wait for pr-worker and print it",
		Usage:   "mithubctl pr --meeting ID [--wait 2m]",
		Flags: func() *flag.FlagSet {
			var c prConfig
			return prFlags(&c)
		},
		Run: runPR,
	}
}

func prFlags(c *prConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("pr")
	fs.StringVar(&c.MeetingID, "meeting", "", "meeting id (required)")
	fs.DurationVar(&c.Wait, "wait", 2*time.Minute, "how long to wait for pr-worker")
	c.API.Register(fs)
	return fs
}

func parsePR(args []string, getenv func(string) string) (prConfig, error) {
	var c prConfig
	if err := cmdline.ParseFlags(prFlags(&c), args); err != nil {
		return c, err
	}
	if c.MeetingID == "" {
		return c, cmdline.UsageErrorf("pr", "--meeting is required")
	}
	if c.Wait <= 0 {
		return c, cmdline.UsageErrorf("pr", "--wait must be positive")
	}
	return c, c.API.Resolve("pr", getenv)
}

// prPoll is how often the PR's status is read while waiting.
const prPoll = 250 * time.Millisecond

func runPR(ctx context.Context, e *cmdline.Env, args []string) error {
	c, err := parsePR(args, e.Getenv)
	if err != nil {
		return err
	}
	client := c.API.Client(e)
	ref, err := client.GeneratePR(ctx, c.MeetingID, true)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "PR %s %s; waiting for pr-worker\n", ref.PRID, ref.Status)
	ctx, cancel := context.WithTimeout(ctx, c.Wait)
	defer cancel()
	tick := time.NewTicker(prPoll)
	defer tick.Stop()
	for {
		pr, err := client.GetPR(ctx, ref.PRID)
		if err != nil {
			return err
		}
		if pr.Done() {
			return printPR(e.Stdout, pr)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("PR %s still %s after %s: is pr-worker running?", pr.ID, pr.Status, c.Wait)
		case <-tick.C:
		}
	}
}

// printPR writes the PR's Markdown, or why it failed.
func printPR(w io.Writer, pr apiclient.PR) error {
	if pr.Status == apiclient.PRFailed {
		return fmt.Errorf("PR %s failed after %d attempts: %s", pr.ID, pr.Attempts, pr.Error)
	}
	_, err := fmt.Fprintf(w, "%s\n(PR %s, %s)\n", pr.Markdown, pr.ID, pr.Status)
	return err
}
