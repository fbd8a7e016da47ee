package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

type startConfig struct {
	Memory    memoryFlags
	Title     string
	MeetingID string
}

func startCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "start",
		Summary: "start a conversation in long-term memory (a chat, or a meeting's) and print its id",
		Usage:   "mithubctl start [--title T | --meeting ID] [--api-key KEY | --tenant NAME]",
		Flags: func() *flag.FlagSet {
			var c startConfig
			return startFlags(&c)
		},
		Run: runStart,
	}
}

func startFlags(c *startConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("start")
	fs.StringVar(&c.Title, "title", "", "title of a new chat conversation")
	fs.StringVar(&c.MeetingID, "meeting", "", "use this meeting's conversation (its transcripts are its turns)")
	c.Memory.register(fs)
	return fs
}

func parseStart(args []string, getenv func(string) string) (startConfig, error) {
	var c startConfig
	if err := cmdline.ParseFlags(startFlags(&c), args); err != nil {
		return c, err
	}
	if c.Title != "" && c.MeetingID != "" {
		return c, cmdline.UsageErrorf("start", "--title and --meeting exclude each other (a meeting's conversation takes the meeting's title)")
	}
	return c, c.Memory.resolve("start", getenv)
}

func runStart(ctx context.Context, e *cmdline.Env, args []string) error {
	c, err := parseStart(args, e.Getenv)
	if err != nil {
		return err
	}
	m, err := openMemory(ctx, c.Memory, e.Getenv, false, e.Stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	var conv conversation.Conversation
	if c.MeetingID != "" {
		conv, err = m.svc.StartMeeting(ctx, m.tenantID, c.MeetingID)
	} else {
		conv, err = m.svc.StartChat(ctx, m.tenantID, c.Title)
	}
	if err != nil {
		return memoryError("start", err)
	}
	fmt.Fprintln(e.Stdout, conv.ID)
	return nil
}
