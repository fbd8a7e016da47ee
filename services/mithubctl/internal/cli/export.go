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
	ConversationID string
	Format         string
	Out            string
}

func exportCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "export",
		Summary: "export a conversation (turns and every summary) as markdown or JSON",
		Usage:   "mithubctl export --conversation ID [--format markdown|json] [--out FILE]",
		Flags: func() *flag.FlagSet {
			var c exportConfig
			return exportFlags(&c)
		},
		Run: runExport,
	}
}

func exportFlags(c *exportConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("export")
	fs.StringVar(&c.ConversationID, "conversation", "", "conversation id (required)")
	fs.StringVar(&c.Format, "format", "markdown", "markdown or json")
	fs.StringVar(&c.Out, "out", "", "write to this file instead of stdout")
	c.Memory.register(fs)
	return fs
}

func parseExport(args []string, getenv func(string) string) (exportConfig, error) {
	var c exportConfig
	if err := cmdline.ParseFlags(exportFlags(&c), args); err != nil {
		return c, err
	}
	switch {
	case c.ConversationID == "":
		return c, cmdline.UsageErrorf("export", "--conversation is required")
	case c.Format != "markdown" && c.Format != "md" && c.Format != "json":
		return c, cmdline.UsageErrorf("export", "--format must be markdown or json, got %q", c.Format)
	}
	return c, c.Memory.resolve("export", getenv)
}

func runExport(ctx context.Context, e *cmdline.Env, args []string) error {
	c, err := parseExport(args, e.Getenv)
	if err != nil {
		return err
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
