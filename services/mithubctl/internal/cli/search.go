package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
)

type searchConfig struct {
	Memory         memoryFlags
	Query          string
	ConversationID string
	K              int
	JSON           bool
}

func searchCommand() command {
	return command{
		name:    "search",
		summary: "search long-term memory (turns and summaries) by words",
		usage:   "mithubctl search --query Q [--conversation ID] [--k N] [--json]",
		flags: func() *flag.FlagSet {
			var c searchConfig
			return searchFlags(&c)
		},
		run: runSearch,
	}
}

func searchFlags(c *searchConfig) *flag.FlagSet {
	fs := newFlagSet("search")
	fs.StringVar(&c.Query, "query", "", "words to look for (required)")
	fs.StringVar(&c.ConversationID, "conversation", "", "search one conversation (default: all)")
	fs.IntVar(&c.K, "k", 10, "number of results (1-100)")
	fs.BoolVar(&c.JSON, "json", false, "print JSON")
	c.Memory.register(fs)
	return fs
}

func parseSearch(args []string, getenv func(string) string) (searchConfig, error) {
	var c searchConfig
	if err := parseFlags(searchFlags(&c), args); err != nil {
		return c, err
	}
	switch {
	case strings.TrimSpace(c.Query) == "":
		return c, usageErrorf("search", "--query is required")
	case c.K < 1 || c.K > 100:
		return c, usageErrorf("search", "--k must be from 1 to 100")
	}
	return c, c.Memory.resolve("search", getenv)
}

func runSearch(ctx context.Context, e *env, args []string) error {
	c, err := parseSearch(args, e.getenv)
	if err != nil {
		return err
	}
	m, err := openMemory(ctx, c.Memory, e.getenv, false, e.stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	hits, err := m.svc.Search(ctx, m.tenantID, c.ConversationID, c.Query, c.K)
	if err != nil {
		return memoryError("search", err)
	}
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"query": c.Query, "hits": hits})
	}
	if len(hits) == 0 {
		fmt.Fprintln(e.stdout, "no matches")
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
		fmt.Fprintf(e.stdout, "%.3f  %s  %s  %s%s\n", h.Score, h.ConversationID[:8], where, who, oneLine(h.Text))
	}
	return nil
}
