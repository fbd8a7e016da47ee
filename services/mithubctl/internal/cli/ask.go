package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/askmode"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// askConfig is the parsed ask command line.
type askConfig struct {
	API       cmdline.APIConfig
	MeetingID string
	ThreadID  string
	CatchUp   bool
	SinceMS   int64
	Question  string
}

func askCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "ask",
		Summary: "ask a question about a meeting; the answer streams, then its citations",
		Usage:   "mithubctl ask --meeting ID --question Q [--thread T] | ask --meeting ID --catch-up [--since-ms N]",
		Flags: func() *flag.FlagSet {
			var c askConfig
			return askFlags(&c)
		},
		Run: runAsk,
	}
}

func askFlags(c *askConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("ask")
	fs.StringVar(&c.MeetingID, "meeting", "", "meeting id (required)")
	fs.StringVar(&c.Question, "question", "", "the question (Korean or English)")
	fs.StringVar(&c.ThreadID, "thread", "", "thread id of an earlier answer, for a follow-up")
	fs.BoolVar(&c.CatchUp, "catch-up", false, "tell what was said since --since-ms instead of answering")
	fs.Int64Var(&c.SinceMS, "since-ms", -1, "with --catch-up: meeting time the period starts at")
	c.API.Register(fs)
	return fs
}

// parseAsk parses and validates the ask command line.
func parseAsk(args []string, getenv func(string) string) (askConfig, error) {
	var c askConfig
	if err := cmdline.ParseFlags(askFlags(&c), args); err != nil {
		return c, err
	}
	c.Question = strings.TrimSpace(c.Question)
	switch {
	case c.MeetingID == "":
		return c, cmdline.UsageErrorf("ask", "--meeting is required")
	case c.Question == "" && !c.CatchUp:
		return c, cmdline.UsageErrorf("ask", "--question is required (or --catch-up)")
	case c.SinceMS >= 0 && !c.CatchUp:
		return c, cmdline.UsageErrorf("ask", "--since-ms goes with --catch-up")
	}
	return c, c.API.Resolve("ask", getenv)
}

func runAsk(ctx context.Context, e *cmdline.Env, args []string) error {
	c, err := parseAsk(args, e.Getenv)
	if err != nil {
		return err
	}
	req := apiclient.AskRequest{Question: c.Question, ThreadID: c.ThreadID, Mode: askmode.Answer}
	if c.CatchUp {
		req.Mode = askmode.CatchUp
		if c.SinceMS >= 0 {
			req.SinceMS = &c.SinceMS
		}
	}
	res, err := c.API.Client(e).AskStream(ctx, c.MeetingID, req, func(ev apiclient.AskEvent) error {
		if ev.Name == apiclient.AskEventToken {
			_, err := io.WriteString(e.Stdout, ev.Token)
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	return printCitations(e.Stdout, res)
}

// printCitations writes the answer's sources and the thread to continue.
func printCitations(w io.Writer, res apiclient.AskResult) error {
	var b strings.Builder
	if !strings.HasSuffix(res.Answer, "\n") {
		b.WriteString("\n")
	}
	if len(res.Citations) > 0 {
		b.WriteString("\nsources:\n")
	}
	for _, c := range res.Citations {
		name := c.SpeakerName
		if name == "" {
			name = c.SpeakerID
		}
		low := ""
		if c.LowConfidence {
			low = " (low transcription confidence)"
		}
		fmt.Fprintf(&b, "  [%d] %s %s, turn %d%s: %s\n", c.N, c.Time, name, c.Seq, low, oneLine(c.Text))
	}
	for _, warn := range res.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	fmt.Fprintf(&b, "\n(%s provider, %d context tokens, thread %s)\n", res.Provider, res.ContextTokens, res.ThreadID)
	_, err := io.WriteString(w, b.String())
	return err
}
