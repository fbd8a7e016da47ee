package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/mcpserver"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

type mcpConfig struct {
	Memory         memoryFlags
	APIURL         string
	ConversationID string
	// StateDir holds the state file that remembers the conversation
	// served last ("" : keep no state).
	StateDir string
	// Queue sends compressions to pr-worker instead of running them here.
	Queue bool
}

func mcpCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "mcp",
		Summary: "serve the MCP tools (memory_*, meeting_*) over stdio for a coding or chat agent",
		Usage:   "mithubctl mcp [--conversation ID] [--state-dir DIR] [--queue] [--api-key KEY] [--api-url URL]",
		Flags: func() *flag.FlagSet {
			var c mcpConfig
			return mcpFlags(&c)
		},
		Run: runMCP,
	}
}

func mcpFlags(c *mcpConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("mcp")
	fs.StringVar(&c.ConversationID, "conversation", "", "current conversation at start (default: the one served last, kept in the state file; else the most recent, or a new one)")
	fs.StringVar(&c.StateDir, "state-dir", "", "directory of the state file that remembers the conversation served last, per tenant and API URL (default $"+envStateDir+", else $XDG_STATE_HOME/mithub, else ~/.local/state/mithub; \"none\": keep no state)")
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
	c.APIURL = cmdline.Setting(c.APIURL, getenv, cmdline.EnvAPIURL, cmdline.DefaultAPIURL)
	switch c.StateDir {
	case "":
		c.StateDir = defaultStateDir(getenv)
	case "none":
		c.StateDir = ""
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
	state := mcpState{dir: c.StateDir}
	key := mcpStateKey(m.tenantID, c.APIURL)
	conv, err := startConversation(ctx, e, m, c.ConversationID, state, key)
	if err != nil {
		return err
	}
	opts := mcpserver.Options{TenantID: m.tenantID, Memory: m.svc, Conversation: conv, Version: "mithubctl",
		OnConversation: func(id string) {
			if err := state.save(key, id); err != nil {
				fmt.Fprintf(e.Stderr, "mcp: remember conversation %s: %v\n", id, err)
			}
		}}
	if key := strings.TrimSpace(c.Memory.APIKey); key != "" {
		// The meeting tools need agent-api and a key; with --tenant alone
		// they answer that they are not available.
		opts.Meetings = mcpMeetingsClient(e, cmdline.APIConfig{URL: c.APIURL, Key: key})
	}
	srv, err := mcpserver.New(opts)
	if err != nil {
		return err
	}
	var in io.Reader = os.Stdin
	if e.Stdin != nil {
		in = e.Stdin
	}
	if err := srv.Run(ctx, mcpserver.NewStdioTransport(in, e.Stdout)); err != nil && ctx.Err() == nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// startConversation returns the conversation a session starts on: the
// one given (which the state file then remembers), else the one the state
// file names for key when it still exists, else "" (the server picks the
// most recent, or makes one on the first message).
func startConversation(ctx context.Context, e *cmdline.Env, m *memoryEnv, given string, state mcpState, key string) (string, error) {
	if given != "" {
		if _, err := m.svc.Get(ctx, m.tenantID, given); err != nil {
			return "", memoryError("mcp", err)
		}
		if err := state.save(key, given); err != nil {
			fmt.Fprintf(e.Stderr, "mcp: remember conversation %s: %v\n", given, err)
		}
		return given, nil
	}
	id, err := state.load(key)
	if err != nil {
		fmt.Fprintf(e.Stderr, "mcp: %v\n", err)
	}
	if id == "" {
		return "", nil
	}
	if _, err := m.svc.Get(ctx, m.tenantID, id); err != nil {
		if errors.Is(err, convmemory.ErrNotFound) || errors.Is(err, convmemory.ErrInvalid) {
			fmt.Fprintf(e.Stderr, "mcp: the conversation served last (%s) is gone; starting without one\n", id)
			return "", nil
		}
		return "", err
	}
	return id, nil
}
