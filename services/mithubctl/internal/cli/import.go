package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// importConfig is the parsed import command line.
type importConfig struct {
	API       cmdline.APIConfig
	File      string
	Format    string
	Title     string
	Language  string
	Project   string
	StartedAt string
	Timeout   time.Duration
}

func importCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "import",
		Summary: "import a finished meeting from a transcript file (WebVTT, SRT, JSONL, QMSum JSON); importing it again stores nothing new",
		Usage:   "mithubctl import FILE [--format vtt|srt|jsonl|qmsum] [--title T] [--project P] [--started-at RFC3339] [--language ko]",
		Flags: func() *flag.FlagSet {
			var c importConfig
			return importFlags(&c)
		},
		Run: runImport,
	}
}

func importFlags(c *importConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("import")
	fs.StringVar(&c.Format, "format", "", "vtt, srt, jsonl or qmsum (default: from the file's extension, else sniffed)")
	fs.StringVar(&c.Title, "title", "", "meeting title (default: the file's name)")
	fs.StringVar(&c.Language, "language", "", "language tag such as ko or en-US")
	fs.StringVar(&c.Project, "project", "", "memory-bank project of the meeting")
	fs.StringVar(&c.StartedAt, "started-at", "", "when the meeting started, RFC 3339 (default: now)")
	fs.DurationVar(&c.Timeout, "timeout", 30*time.Minute, "how long the upload and import may take")
	c.API.Register(fs)
	return fs
}

func parseImport(args []string, getenv func(string) string) (importConfig, error) {
	var c importConfig
	// FILE may come before or after the flags.
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		c.File, args = args[0], args[1:]
	}
	fs := importFlags(&c)
	if err := fs.Parse(args); err != nil {
		return c, cmdline.ParseFlags(fs, args)
	}
	rest := fs.Args()
	if c.File == "" && len(rest) > 0 {
		c.File, rest = rest[0], rest[1:]
		if err := fs.Parse(rest); err != nil {
			return c, cmdline.ParseFlags(fs, rest)
		}
		rest = fs.Args()
	}
	switch {
	case len(rest) > 0:
		return c, cmdline.UsageErrorf("import", "unexpected argument %q", rest[0])
	case c.File == "":
		return c, cmdline.UsageErrorf("import", "name the transcript FILE to import")
	case c.Timeout <= 0:
		return c, cmdline.UsageErrorf("import", "--timeout must be positive")
	}
	if _, err := startedAt("import", c.StartedAt); err != nil {
		return c, err
	}
	return c, c.API.Resolve("import", getenv)
}

// startedAt reads the --started-at of command cmd: the zero time for "",
// else an RFC 3339 time.
func startedAt(cmd, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, cmdline.UsageErrorf(cmd, "--started-at %q: want an RFC 3339 time such as 2026-03-12T09:00:00Z", s)
	}
	return t, nil
}

func runImport(ctx context.Context, e *cmdline.Env, args []string) error {
	c, err := parseImport(args, e.Getenv)
	if err != nil {
		return err
	}
	f, err := os.Open(c.File)
	if err != nil {
		return err
	}
	defer f.Close()
	req := apiclient.ImportRequest{File: f, Name: filepath.Base(c.File), Format: c.Format, Title: c.Title,
		Language: c.Language, Project: c.Project}
	req.StartedAt, _ = startedAt("import", c.StartedAt) // checked by parseImport
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	res, err := c.API.Client(e).Import(ctx, req)
	if err != nil {
		return fmt.Errorf("import %s: %w", c.File, err)
	}
	what := "imported into new meeting"
	if !res.Created {
		what = "already imported as meeting"
	}
	fmt.Fprintf(e.Stderr, "%s: %d segments (%s), %d stored, %d already stored; %s %s\n",
		c.File, res.Segments, res.Format, res.Inserted, res.Duplicates, what, res.MeetingID)
	_, err = fmt.Fprintln(e.Stdout, res.MeetingID)
	return err
}
