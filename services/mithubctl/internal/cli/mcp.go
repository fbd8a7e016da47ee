package cli

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/mcpserver"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

type mcpConfig struct {
	Memory         memoryFlags
	APIURL         string
	ConversationID string
	// Queue sends compressions to pr-worker instead of running them here.
	Queue bool
}

func mcpCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "mcp",
		Summary: "serve the MCP tools (memory_*, meeting_*) over stdio for a coding or chat agent",
		Usage:   "mithubctl mcp [--conversation ID] [--queue] [--api-key KEY] [--api-url URL]",
		Flags: func() *flag.FlagSet {
			var c mcpConfig
			return mcpFlags(&c)
		},
		Run: runMCP,
	}
}

func mcpFlags(c *mcpConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("mcp")
	fs.StringVar(&c.ConversationID, "conversation", "", "current conversation at start (default: the most recent, or a new one)")
	fs.BoolVar(&c.Queue, "queue", false, "queue compressions as memory:* tasks for pr-worker instead of summarising here")
	fs.StringVar(&c.APIURL, "api-url", "", "agent-api base URL for the meeting tools (default $"+cmdline.EnvAPIURL+" or "+cmdline.DefaultAPIURL+")")
	c.Memory.register(fs)
	return fs
}

func parseMCP(args []string, getenv func(string) string) (mcpConfig, error) {
	var c mcpConfig
	if err := cmdline.ParseFlags(mcpFlags(&c), args); err != nil {
		return c, err
	}
	if c.APIURL == "" {
		c.APIURL = getenv(cmdline.EnvAPIURL)
	}
	if c.APIURL == "" {
		c.APIURL = cmdline.DefaultAPIURL
	}
	u, err := url.Parse(c.APIURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, cmdline.UsageErrorf("mcp", "API URL %q: want http(s)://host[:port]", c.APIURL)
	}
	return c, c.Memory.resolve("mcp", getenv)
}

// runMCP serves MCP on stdin/stdout until the client disconnects or ctx
// ends. Diagnostics go to stderr; stdout carries only the protocol.
func runMCP(ctx context.Context, e *cmdline.Env, args []string) error {
	c, err := parseMCP(args, e.Getenv)
	if err != nil {
		return err
	}
	m, err := openMemory(ctx, c.Memory, e.Getenv, c.Queue, e.Stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	opts := mcpserver.Options{TenantID: m.tenantID, Memory: m.svc, Conversation: c.ConversationID, Version: "mithubctl"}
	if key := strings.TrimSpace(c.Memory.APIKey); key != "" {
		// The meeting tools need agent-api and a key; with --tenant alone
		// they answer that they are not available.
		opts.Meetings = mcpMeetingsClient(e, cmdline.APIConfig{URL: c.APIURL, Key: key})
	}
	if c.ConversationID != "" {
		if _, err := m.svc.Get(ctx, m.tenantID, c.ConversationID); err != nil {
			return memoryError("mcp", err)
		}
	}
	srv, err := mcpserver.New(opts)
	if err != nil {
		return err
	}
	if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}
