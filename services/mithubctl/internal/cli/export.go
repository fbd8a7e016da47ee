package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

type exportConfig struct {
	Memory         memoryFlags
	API            cmdline.APIConfig
	ConversationID string
	MeetingID      string
	PRID           string
	Format         string
	Out            string
}

func exportCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "export",
		Summary: "export a conversation (turns and every summary), a meeting's transcript or a PR",
		Usage: "mithubctl export --conversation ID [--format markdown|json] [--out FILE]\n" +
			"       mithubctl export --meeting ID [--format vtt|srt|md|json|jsonl] [--out FILE]\n" +
			"       mithubctl export --pr ID [--format md|json] [--out FILE]",
		Flags: func() *flag.FlagSet {
			var c exportConfig
			return exportFlags(&c)
		},
		Run: runExport,
	}
}

func exportFlags(c *exportConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("export")
	fs.StringVar(&c.ConversationID, "conversation", "", "conversation id (from the memory store)")
	fs.StringVar(&c.MeetingID, "meeting", "", "meeting id: export its transcript (from agent-api)")
	fs.StringVar(&c.PRID, "pr", "", "PR id: export the PR (from agent-api)")
	fs.StringVar(&c.Format, "format", "", "conversation: markdown or json; meeting: vtt, srt, md, json or jsonl (default vtt); PR: md or json (default md)")
	fs.StringVar(&c.Out, "out", "", "write to this file instead of stdout")
	c.Memory.register(fs)
	fs.StringVar(&c.API.URL, "api-url", "", "agent-api base URL for --meeting and --pr (default $"+cmdline.EnvAPIURL+" or "+cmdline.DefaultAPIURL+")")
	return fs
}

func parseExport(args []string, getenv func(string) string) (exportConfig, error) {
	var c exportConfig
	if err := cmdline.ParseFlags(exportFlags(&c), args); err != nil {
		return c, err
	}
	n := 0
	for _, id := range []string{c.ConversationID, c.MeetingID, c.PRID} {
		if id != "" {
			n++
		}
	}
	if n != 1 {
		return c, cmdline.UsageErrorf("export", "name exactly one of --conversation, --meeting and --pr")
	}
	c.API.Key = c.Memory.APIKey // --api-key serves both
	switch {
	case c.MeetingID != "":
		if c.Format == "" {
			c.Format = "vtt"
		}
		switch c.Format {
		case "vtt", "srt", "md", "json", "jsonl":
		default:
			return c, cmdline.UsageErrorf("export", "--format of a meeting must be vtt, srt, md, json or jsonl, got %q", c.Format)
		}
		return c, c.API.Resolve("export", getenv)
	case c.PRID != "":
		if c.Format == "" {
			c.Format = "md"
		}
		if c.Format != "md" && c.Format != "json" {
			return c, cmdline.UsageErrorf("export", "--format of a PR must be md or json, got %q", c.Format)
		}
		return c, c.API.Resolve("export", getenv)
	}
	if c.Format == "" {
		c.Format = "markdown"
	}
	if c.Format != "markdown" && c.Format != "md" && c.Format != "json" {
		return c, cmdline.UsageErrorf("export", "--format must be markdown or json, got %q", c.Format)
	}
	return c, c.Memory.resolve("export", getenv)
}

func runExport(ctx context.Context, e *cmdline.Env, args []string) error {
	c, err := parseExport(args, e.Getenv)
	if err != nil {
		return err
	}
	if c.MeetingID != "" || c.PRID != "" {
		return exportFromAPI(ctx, e, c)
	}
	m, err := openMemory(ctx, c.Memory, e.Getenv, false, e.Stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	x, err := m.svc.Export(ctx, m.tenantID, c.ConversationID)
	if err != nil {
		return memoryError("export", err)
	}
	var w io.Writer = e.Stdout
	if c.Out != "" {
		f, err := os.Create(c.Out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if c.Format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(x)
	}
	_, err = io.WriteString(w, x.Markdown())
	if err == nil && c.Out != "" {
		fmt.Fprintf(e.Stderr, "wrote %s\n", c.Out)
	}
	return err
}

// exportFromAPI writes a meeting's transcript or a PR, as agent-api
// exports it, to --out or stdout.
func exportFromAPI(ctx context.Context, e *cmdline.Env, c exportConfig) error {
	var w io.Writer = e.Stdout
	var f *os.File
	if c.Out != "" {
		var err error
		if f, err = os.Create(c.Out); err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	client := c.API.Client(e)
	var err error
	if c.MeetingID != "" {
		err = client.ExportTranscript(ctx, c.MeetingID, c.Format, w)
	} else {
		err = client.ExportPR(ctx, c.PRID, c.Format, w)
	}
	if err != nil {
		return err
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "wrote %s\n", c.Out)
	}
	return nil
}
