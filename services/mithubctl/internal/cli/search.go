package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

type searchConfig struct {
	Memory         memoryFlags
	Query          string
	ConversationID string
	K              int
	JSON           bool
}

func searchCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "search",
		Summary: "search long-term memory (turns and summaries) by words",
		Usage:   "mithubctl search --query Q [--conversation ID] [--k N] [--json]",
		Flags: func() *flag.FlagSet {
			var c searchConfig
			return searchFlags(&c)
		},
		Run: runSearch,
	}
}

func searchFlags(c *searchConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("search")
	fs.StringVar(&c.Query, "query", "", "words to look for (required)")
	fs.StringVar(&c.ConversationID, "conversation", "", "search one conversation (default: all)")
	fs.IntVar(&c.K, "k", 10, "number of results (1-100)")
	fs.BoolVar(&c.JSON, "json", false, "print JSON")
	c.Memory.register(fs)
	return fs
}

func parseSearch(args []string, getenv func(string) string) (searchConfig, error) {
	var c searchConfig
	if err := cmdline.ParseFlags(searchFlags(&c), args); err != nil {
		return c, err
	}
	switch {
	case strings.TrimSpace(c.Query) == "":
		return c, cmdline.UsageErrorf("search", "--query is required")
	case c.K < 1 || c.K > 100:
		return c, cmdline.UsageErrorf("search", "--k must be from 1 to 100")
	}
	return c, c.Memory.resolve("search", getenv)
}

func runSearch(ctx context.Context, e *cmdline.Env, args []string) error {
	c, err := parseSearch(args, e.Getenv)
	if err != nil {
		return err
	}
	m, err := openMemory(ctx, c.Memory, e.Getenv, false, e.Stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	hits, err := m.svc.Search(ctx, m.tenantID, c.ConversationID, c.Query, c.K)
	if err != nil {
		return memoryError("search", err)
	}
	if c.JSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"query": c.Query, "hits": hits})
	}
	if len(hits) == 0 {
		fmt.Fprintln(e.Stdout, "no matches")
		return nil
	}
	for _, h := range hits {
		where := fmt.Sprintf("turn %d", h.Seq)
		if h.Kind == "summary" {
			where = fmt.Sprintf("summary L%d#%d", h.Level, h.Seq)
		}
		who := ""
		if h.Speaker != "" {
			who = h.Speaker + ": "
		}
		fmt.Fprintf(e.Stdout, "%.3f  %s  %s  %s%s\n", h.Score, h.ConversationID[:8], where, who, oneLine(h.Text))
	}
	return nil
}
