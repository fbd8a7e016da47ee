package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// conversationContext is "context --conversation ID": a long-term memory
// conversation's compressed context (summaries, then recent turns).
type conversationContext struct {
	ID     string
	Budget int
	Memory memoryFlags
}

// register adds the flags context does not have already (it has
// --api-key and --api-url).
func (c *conversationContext) register(fs *flag.FlagSet) {
	fs.StringVar(&c.ID, "conversation", "", "print this memory conversation's compressed context instead of a meeting's")
	fs.IntVar(&c.Budget, "budget", 0, "with --conversation: context size in tokens (default 10% of the window)")
	fs.StringVar(&c.Memory.DatabaseURL, "database-url", "", "with --conversation: PostgreSQL URL (default $"+cmdline.EnvDatabaseURL+")")
	fs.StringVar(&c.Memory.Tenant, "tenant", "", "with --conversation: tenant name instead of an API key")
	fs.IntVar(&c.Memory.Window, "window", 0, "with --conversation: model context window in tokens")
}

func (c *conversationContext) resolve(meetingID, apiKey string, getenv func(string) string) error {
	if meetingID != "" {
		return cmdline.UsageErrorf("context", "--meeting and --conversation exclude each other")
	}
	if c.Budget < 0 {
		return cmdline.UsageErrorf("context", "--budget must not be negative")
	}
	c.Memory.APIKey = apiKey
	return c.Memory.resolve("context", getenv)
}

func runConversationContext(ctx context.Context, e *cmdline.Env, c conversationContext, asJSON bool) error {
	m, err := openMemory(ctx, c.Memory, e.Getenv, false, e.Stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	budget := c.Budget
	if budget == 0 {
		budget = m.svc.TargetTokens(c.Memory.Window)
	}
	doc, err := m.svc.Context(ctx, m.tenantID, c.ID, budget)
	if err != nil {
		return memoryError("context", err)
	}
	if asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	return printConversationContext(e.Stdout, doc)
}

func printConversationContext(w io.Writer, doc convmemory.Context) error {
	var b strings.Builder
	b.WriteString(doc.Text())
	if len(doc.Items) == 0 {
		b.WriteString("(no turns yet)\n")
	}
	fmt.Fprintf(&b, "\ncontext: %d tokens of %d budget (%d summaries, %d recent turns); conversation %d tokens",
		doc.Tokens, doc.Budget, doc.Summaries, doc.RecentTurns, doc.RawTokens)
	if doc.Truncated {
		b.WriteString("; older parts left out: run mithubctl compress")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
