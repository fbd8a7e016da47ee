package cli

import (
	"context"
	"flag"
	"fmt"
	"math"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/replay"
)

// replayConfig is the parsed replay command line.
type replayConfig struct {
	API  cmdline.APIConfig
	File string
	// Rate in utterances per second. Default 0: unthrottled.
	Rate float64
	// Batch is utterances per request. Default 50.
	Batch int
	// MeetingID resumes into an existing meeting. Default "": a new one.
	MeetingID string
	// Language of a new meeting. Default "en".
	Language string
	// StartedAt of a new meeting, RFC 3339. Default "": now.
	StartedAt string
}

func replayCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "replay",
		Summary: "stream a QMSum meeting (.json) or utterances (.jsonl) into agent-api and print the meeting id",
		Usage:   "mithubctl replay --meeting-file F [--rate N] [--batch N] [--meeting ID] [--language L] [--started-at RFC3339]",
		Flags: func() *flag.FlagSet {
			var c replayConfig
			return replayFlags(&c)
		},
		Run: runReplay,
	}
}

func replayFlags(c *replayConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("replay")
	fs.StringVar(&c.File, "meeting-file", "", "meeting to replay: QMSum .json or .jsonl (required)")
	fs.Float64Var(&c.Rate, "rate", 0, "utterances per second; 0 sends as fast as the API accepts")
	fs.IntVar(&c.Batch, "batch", replay.DefaultBatch, fmt.Sprintf("utterances per request (1-%d)", apiclient.MaxUtterancesPerRequest))
	fs.StringVar(&c.MeetingID, "meeting", "", "resume into this existing meeting instead of creating one")
	fs.StringVar(&c.Language, "language", "en", "language of a created meeting")
	fs.StringVar(&c.StartedAt, "started-at", "", "when a created meeting started, RFC 3339, e.g. a recorded meeting's date (default: now)")
	c.API.Register(fs)
	return fs
}

// parseReplay parses and validates the replay command line.
func parseReplay(args []string, getenv func(string) string) (replayConfig, error) {
	var c replayConfig
	if err := cmdline.ParseFlags(replayFlags(&c), args); err != nil {
		return c, err
	}
	switch {
	case c.File == "":
		return c, cmdline.UsageErrorf("replay", "--meeting-file is required")
	case c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return c, cmdline.UsageErrorf("replay", "--rate %v: want a number >= 0", c.Rate)
	case c.Batch < 1 || c.Batch > apiclient.MaxUtterancesPerRequest:
		return c, cmdline.UsageErrorf("replay", "--batch %d: want 1 to %d", c.Batch, apiclient.MaxUtterancesPerRequest)
	case c.Language == "":
		return c, cmdline.UsageErrorf("replay", "--language must not be empty")
	case c.StartedAt != "" && c.MeetingID != "":
		return c, cmdline.UsageErrorf("replay", "--started-at is for a created meeting, not with --meeting")
	}
	if _, err := startedAt("replay", c.StartedAt); err != nil {
		return c, err
	}
	return c, c.API.Resolve("replay", getenv)
}

// runReplay prints only the meeting id on stdout; progress goes to stderr.
func runReplay(ctx context.Context, e *cmdline.Env, args []string) error {
	c, err := parseReplay(args, e.Getenv)
	if err != nil {
		return err
	}
	started, _ := startedAt("replay", c.StartedAt) // checked by parseReplay
	id, err := replay.Run(ctx, c.API.Client(e), replay.Options{
		File:      c.File,
		Rate:      c.Rate,
		Batch:     c.Batch,
		MeetingID: c.MeetingID,
		Language:  c.Language,
		StartedAt: started,
		Progress:  e.Stderr,
	})
	if err != nil {
		if id != "" {
			return fmt.Errorf("replay into meeting %s (resume with --meeting %s): %w", id, id, err)
		}
		return err
	}
	fmt.Fprintln(e.Stdout, id)
	return nil
}
