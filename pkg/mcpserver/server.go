package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/convmemory"
)

// Memory is the long-conversation memory the memory tools use;
// *convmemory.Service implements it.
type Memory interface {
	StartChat(ctx context.Context, tenantID, title string) (conversation.Conversation, error)
	Get(ctx context.Context, tenantID, id string) (conversation.Conversation, error)
	List(ctx context.Context, tenantID string, limit int) ([]conversation.Conversation, error)
	AddMessage(ctx context.Context, tenantID, convID, role, content string) (convmemory.Turn, error)
	ShouldCompress(ctx context.Context, tenantID, convID string, window, currentTokens int) (convmemory.Decision, error)
	Compress(ctx context.Context, tenantID, convID string, window int) (convmemory.Job, error)
	CompressToBudget(ctx context.Context, tenantID, convID string, budget int) (convmemory.Job, error)
	Progress(ctx context.Context, job convmemory.Job) (convmemory.Plan, error)
	TargetTokens(window int) int
	Context(ctx context.Context, tenantID, convID string, budget int) (convmemory.Context, error)
	Search(ctx context.Context, tenantID, convID, query string, k int) ([]convmemory.Hit, error)
	Stats(ctx context.Context, tenantID, convID string) (convmemory.Stats, error)
}

var _ Memory = (*convmemory.Service)(nil)

// Meetings is what the meeting tools (meeting_list, meeting_topics,
// meeting_ask) need: agent-api's meeting list, topics, topic search and
// ask, with apiclient's types as the results. *apiclient.Client
// implements it over HTTP (mithubctl mcp, stdio); agent-api's /mcp
// implements it in-process over its use cases. Errors the tools pass on
// as tool errors.
type Meetings interface {
	ListMeetings(ctx context.Context, limit int) ([]apiclient.Meeting, error)
	Topics(ctx context.Context, meetingID string) (apiclient.TopicList, error)
	SearchTopics(ctx context.Context, meetingID, query string, k int) (apiclient.TopicSearch, error)
	Ask(ctx context.Context, meetingID string, req apiclient.AskRequest) (apiclient.AskResult, error)
}

var _ Meetings = (*apiclient.Client)(nil)

// Options configure a Server.
type Options struct {
	// TenantID owns every conversation the tools touch. Required.
	TenantID string
	Memory   Memory
	// Meetings serves the meeting tools; without it they answer with an
	// error saying so.
	Meetings Meetings
	// Conversation is the session's current conversation at start
	// (default: none until a tool names or creates one).
	Conversation string
	// Version is reported to clients (default "dev").
	Version string
	// OnConversation, when set, is told each time the session's current
	// conversation changes, so the caller can resume it after a restart
	// (`mithubctl mcp` keeps it in its state file).
	OnConversation func(id string)
}

// session is the state one Server keeps: its current conversation.
type session struct {
	opts Options

	// mu guards current.
	mu      sync.Mutex
	current string
}

// New returns an MCP server with the MitHub tools and resource.
func New(opts Options) (*mcp.Server, error) {
	if opts.TenantID == "" || opts.Memory == nil {
		return nil, errors.New("mcpserver: TenantID and Memory are required")
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &session{opts: opts, current: opts.Conversation}
	srv := mcp.NewServer(&mcp.Implementation{Name: "mithub", Title: "MitHub meeting memory", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "Before each answer call memory_should_compress; when it says should_compress, call memory_get_context and " +
			"replace your history with the returned context. Save every message with memory_add_message. " +
			"Use memory_search for older details and meeting_* tools for the team's meetings. " +
			"memory_start_conversation begins a new conversation; memory_list_conversations lists them.",
	})
	s.addMemoryTools(srv)
	s.addConversationTools(srv)
	s.addMeetingTools(srv)
	srv.AddResource(&mcp.Resource{
		URI:         CurrentContextURI,
		Name:        "current-context",
		Title:       "Current compressed context",
		Description: "The compressed context of the session's current conversation: summaries of older turns, then the most recent turns.",
		MIMEType:    "application/json",
	}, s.readCurrentContext)
	return srv, nil
}

// CurrentContextURI names the current context resource.
const CurrentContextURI = "memory://context/current"

// conversation picks the conversation a tool works on: the one given
// (which becomes current), else the current one, else the tenant's most
// recent; create makes a chat conversation when there is none.
func (s *session) conversation(ctx context.Context, given string, create bool) (string, error) {
	if given != "" {
		c, err := s.opts.Memory.Get(ctx, s.opts.TenantID, given)
		if err != nil {
			return "", err
		}
		s.setCurrent(c.ID)
		return c.ID, nil
	}
	s.mu.Lock()
	cur := s.current
	s.mu.Unlock()
	if cur != "" {
		return cur, nil
	}
	cs, err := s.opts.Memory.List(ctx, s.opts.TenantID, 1)
	if err != nil {
		return "", err
	}
	if len(cs) > 0 {
		s.setCurrent(cs[0].ID)
		return cs[0].ID, nil
	}
	if !create {
		return "", fmt.Errorf("%w: no conversation yet: call memory_add_message first or pass conversation_id", convmemory.ErrNotFound)
	}
	c, err := s.opts.Memory.StartChat(ctx, s.opts.TenantID, "")
	if err != nil {
		return "", err
	}
	s.setCurrent(c.ID)
	return c.ID, nil
}

func (s *session) setCurrent(id string) {
	s.mu.Lock()
	changed := s.current != id
	s.current = id
	s.mu.Unlock()
	if changed && s.opts.OnConversation != nil {
		s.opts.OnConversation(id)
	}
}

func (s *session) readCurrentContext(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	conv, err := s.conversation(ctx, "", false)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	c, err := s.opts.Memory.Context(ctx, s.opts.TenantID, conv, 0)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(contextOutput{Context: c, Text: c.Text()})
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
}

// invalid is a tool input error.
func invalid(format string, args ...any) error {
	return fmt.Errorf("invalid argument: "+format, args...)
}

func checkUUID(field, v string, required bool) error {
	if v == "" {
		if required {
			return invalid("%s is required", field)
		}
		return nil
	}
	if len(v) != 36 || strings.Count(v, "-") != 4 || !utf8.ValidString(v) {
		return invalid("%s %q is not a UUID", field, truncate(v, 40))
	}
	for i, r := range v {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if r != '-' {
				return invalid("%s %q is not a UUID", field, truncate(v, 40))
			}
			continue
		}
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return invalid("%s %q is not a UUID", field, truncate(v, 40))
		}
	}
	return nil
}

func checkRange(field string, v, lo, hi int) error {
	if v < lo || v > hi {
		return invalid("%s must be from %d to %d, got %d", field, lo, hi, v)
	}
	return nil
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
