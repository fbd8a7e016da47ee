package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/mithub/mithub/pkg/memory"
)

type startConfig struct {
	Memory    memoryFlags
	Title     string
	MeetingID string
}

func startCommand() command {
	return command{
		name:    "start",
		summary: "start a conversation in long-term memory (a chat, or a meeting's) and print its id",
		usage:   "mithubctl start [--title T | --meeting ID] [--api-key KEY | --tenant NAME]",
		flags: func() *flag.FlagSet {
			var c startConfig
			return startFlags(&c)
		},
		run: runStart,
	}
}

func startFlags(c *startConfig) *flag.FlagSet {
	fs := newFlagSet("start")
	fs.StringVar(&c.Title, "title", "", "title of a new chat conversation")
	fs.StringVar(&c.MeetingID, "meeting", "", "use this meeting's conversation (its transcripts are its turns)")
	c.Memory.register(fs)
	return fs
}

func parseStart(args []string, getenv func(string) string) (startConfig, error) {
	var c startConfig
	if err := parseFlags(startFlags(&c), args); err != nil {
		return c, err
	}
	if c.Title != "" && c.MeetingID != "" {
		return c, usageErrorf("start", "--title and --meeting exclude each other (a meeting's conversation takes the meeting's title)")
	}
	return c, c.Memory.resolve("start", getenv)
}

func runStart(ctx context.Context, e *env, args []string) error {
	c, err := parseStart(args, e.getenv)
	if err != nil {
		return err
	}
	m, err := openMemory(ctx, c.Memory, e.getenv, false, e.stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	var conv memory.Conversation
	if c.MeetingID != "" {
		conv, err = m.svc.StartMeeting(ctx, m.tenantID, c.MeetingID)
	} else {
		conv, err = m.svc.StartChat(ctx, m.tenantID, c.Title)
	}
	if err != nil {
		return memoryError("start", err)
	}
	fmt.Fprintln(e.stdout, conv.ID)
	return nil
}
