package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// contextConfig is the parsed context command line.
type contextConfig struct {
	API       cmdline.APIConfig
	MeetingID string
	// JSON prints the API's document instead of the transcript view.
	JSON bool
	// Conversation selects a long-term memory conversation instead of a
	// meeting's live context (see contextconv.go).
	Conversation conversationContext
}

func contextCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "context",
		Summary: "print a meeting's L0 context (recent turns and token totals)",
		Usage:   "mithubctl context --meeting ID [--json] | context --conversation ID [--budget N] [--json]",
		Flags: func() *flag.FlagSet {
			var c contextConfig
			return contextFlags(&c)
		},
		Run: runContext,
	}
}

func contextFlags(c *contextConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("context")
	fs.StringVar(&c.MeetingID, "meeting", "", "meeting id (required)")
	fs.BoolVar(&c.JSON, "json", false, "print the raw JSON document")
	c.API.Register(fs)
	c.Conversation.register(fs)
	return fs
}

// parseContext parses and validates the context command line.
func parseContext(args []string, getenv func(string) string) (contextConfig, error) {
	var c contextConfig
	if err := cmdline.ParseFlags(contextFlags(&c), args); err != nil {
		return c, err
	}
	if c.Conversation.ID != "" {
		return c, c.Conversation.resolve(c.MeetingID, c.API.Key, getenv)
	}
	if c.MeetingID == "" {
		return c, cmdline.UsageErrorf("context", "--meeting is required (or --conversation for a memory conversation)")
	}
	return c, c.API.Resolve("context", getenv)
}

func runContext(ctx context.Context, e *cmdline.Env, args []string) error {
	c, err := parseContext(args, e.Getenv)
	if err != nil {
		return err
	}
	if c.Conversation.ID != "" {
		return runConversationContext(ctx, e, c.Conversation, c.JSON)
	}
	client := c.API.Client(e)
	if c.JSON {
		raw, err := client.ContextRaw(ctx, c.MeetingID)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, raw, "", "  "); err != nil {
			return fmt.Errorf("format context: %w", err)
		}
		buf.WriteByte('\n')
		_, err = e.Stdout.Write(buf.Bytes())
		return err
	}
	mc, err := client.ContextWaited(ctx, c.MeetingID)
	if err != nil {
		return err
	}
	return printContext(e.Stdout, mc)
}

// printContext writes one "[mm:ss] Speaker: text" line per L0 turn, then the
// token totals.
func printContext(w io.Writer, mc apiclient.Context) error {
	var b strings.Builder
	for _, t := range mc.L0.Turns {
		fmt.Fprintf(&b, "[%s] %s: %s\n", clock(t.StartMS), speaker(t), oneLine(t.Text))
	}
	if len(mc.L0.Turns) == 0 {
		b.WriteString("(no turns in L0)\n")
	}
	fmt.Fprintf(&b, "\nL0: %d turns, %d tokens (cursor %d)\n", len(mc.L0.Turns), mc.L0.Tokens, mc.Cursor)
	if len(mc.L1.Topics) > 0 {
		fmt.Fprintf(&b, "\nL1 topics (through seq %d):\n", mc.L1.Cursor)
		for _, t := range mc.L1.Topics {
			fmt.Fprintf(&b, "  %2d. [%s-%s] %s: %s\n", t.Seq+1, clock(t.StartMS), clock(t.EndMS), oneLine(t.Title), oneLine(t.Summary))
		}
	}
	fmt.Fprintf(&b, "pending (not yet in a topic): %d turns, %d tokens\n", len(mc.Pending.Turns), mc.Pending.Tokens)
	if len(mc.Speakers) > 0 {
		b.WriteString("\nspeakers:\n")
		for _, sp := range mc.Speakers {
			fmt.Fprintf(&b, "  %-16s %4d turns %6d words  %s\n", sp.Name, sp.Turns, sp.Words, sp.Role)
		}
	}
	fmt.Fprintf(&b, "\nmeeting: %d utterances, %d tokens\n", mc.Counters.Utterances, mc.Counters.Tokens)
	_, err := io.WriteString(w, b.String())
	return err
}

// clock formats a meeting offset as mm:ss; minutes go past 59.
func clock(ms int64) string {
	secs := max(ms, 0) / 1000
	return fmt.Sprintf("%02d:%02d", secs/60, secs%60)
}

func speaker(t apiclient.Turn) string {
	switch {
	case t.SpeakerName != "":
		return t.SpeakerName
	case t.SpeakerID != "":
		return t.SpeakerID
	default:
		return "unknown"
	}
}

// oneLine folds line breaks so each turn stays on one line.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), " ")
}
