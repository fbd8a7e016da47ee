package mcpserver

import (
	"context"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/convmemory"
)

const (
	maxTokensArg = 100_000_000
	maxK         = 100
)

type shouldCompressInput struct {
	ConversationID string `json:"conversation_id,omitempty" jsonschema:"conversation to check (default: the current one)"`
	CurrentTokens  int    `json:"current_tokens,omitempty" jsonschema:"your own count of the live context in tokens (default: the conversation's live tokens)"`
	ContextWindow  int    `json:"context_window,omitempty" jsonschema:"your model's context window in tokens (default: the server's)"`
}

type shouldCompressOutput struct {
	ConversationID string `json:"conversation_id"`
	convmemory.Decision
}

type addMessageInput struct {
	ConversationID string `json:"conversation_id,omitempty" jsonschema:"chat conversation to add to (default: the current one, created on first use)"`
	Role           string `json:"role" jsonschema:"who wrote it: user, assistant, system, tool or a name"`
	Content        string `json:"content" jsonschema:"the message text"`
}

type addMessageOutput struct {
	ConversationID string `json:"conversation_id"`
	Seq            int    `json:"seq"`
	Tokens         int    `json:"tokens"`
	convmemory.Decision
}

type getContextInput struct {
	ConversationID string `json:"conversation_id,omitempty" jsonschema:"conversation (default: the current one)"`
	BudgetTokens   int    `json:"budget_tokens,omitempty" jsonschema:"size of the returned context in tokens (default: 10% of the context window)"`
	ContextWindow  int    `json:"context_window,omitempty" jsonschema:"your model's context window in tokens (default: the server's)"`
	Compress       *bool  `json:"compress,omitempty" jsonschema:"compress first: true always, false never; default: when memory_should_compress says so"`
}

type contextOutput struct {
	convmemory.Context
	// Text is the context rendered for a prompt.
	Text string `json:"text"`
	// Compression: done (compressed now), running (queued, summaries
	// arrive in the background), skipped.
	Compression string `json:"compression,omitempty"`
	// Levels says, while a compression is running, how many summaries of
	// each level are stored of those planned; the context uses the stored
	// ones.
	Levels []convmemory.LevelProgress `json:"levels,omitempty"`
}

type searchInput struct {
	Query          string `json:"query" jsonschema:"words to look for (Korean or English)"`
	ConversationID string `json:"conversation_id,omitempty" jsonschema:"conversation to search (default: the current one)"`
	Scope          string `json:"scope,omitempty" jsonschema:"conversation (default): the given or current conversation; all: every conversation of yours, each hit naming its own"`
	K              int    `json:"k,omitempty" jsonschema:"number of results, 1 to 100 (default 10)"`
}

// Search scopes.
const (
	scopeConversation = "conversation"
	scopeAll          = "all"
)

type searchOutput struct {
	Query string `json:"query"`
	Scope string `json:"scope"`
	// ConversationID is the conversation searched; empty for scope all
	// or before the first message.
	ConversationID string           `json:"conversation_id,omitempty"`
	Hits           []convmemory.Hit `json:"hits"`
}

type statsInput struct {
	ConversationID string `json:"conversation_id,omitempty" jsonschema:"conversation (default: the current one)"`
}

func (s *session) addMemoryTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "memory_should_compress",
		Description: "Say whether the conversation's live context is over 70% of the model's context window and should be compressed. The live context is your current_tokens, else the last memory_get_context result plus the messages added since. Call before each answer."},
		s.shouldCompress)
	mcp.AddTool(srv, &mcp.Tool{Name: "memory_add_message",
		Description: "Save one message of the conversation to long-term memory. Returns its position and whether the context should be compressed."},
		s.addMessage)
	mcp.AddTool(srv, &mcp.Tool{Name: "memory_get_context",
		Description: "Return the conversation compressed to a token budget (default 10% of the window): summaries of older turns keeping names, numbers, dates, identifiers and decisions, then the most recent turns verbatim. Compresses first when memory_should_compress says so or the conversation does not fit the budget."},
		s.getContext)
	mcp.AddTool(srv, &mcp.Tool{Name: "memory_search",
		Description: "Search the conversation's past turns and summaries by words (Korean or English), best matches first (BM25); scope all searches every conversation. Each hit gives its text and the turns it covers."},
		s.search)
	mcp.AddTool(srv, &mcp.Tool{Name: "memory_get_stats",
		Description: "Token usage of a conversation: turns, raw and live tokens, summaries per level, compression ratio."},
		s.stats)
}

func (s *session) shouldCompress(ctx context.Context, _ *mcp.CallToolRequest, in shouldCompressInput) (*mcp.CallToolResult, any, error) {
	if err := checkUUID("conversation_id", in.ConversationID, false); err != nil {
		return nil, nil, err
	}
	if err := checkRange("current_tokens", in.CurrentTokens, 0, maxTokensArg); err != nil {
		return nil, nil, err
	}
	if err := checkRange("context_window", in.ContextWindow, 0, maxTokensArg); err != nil {
		return nil, nil, err
	}
	conv, ok, err := s.existingConversation(ctx, in.ConversationID)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		// Nothing is stored to compress yet.
		return nil, shouldCompressOutput{Decision: convmemory.Decision{ContextWindow: in.ContextWindow}}, nil
	}
	d, err := s.opts.Memory.ShouldCompress(ctx, s.opts.TenantID, conv, in.ContextWindow, in.CurrentTokens)
	if err != nil {
		return nil, nil, err
	}
	return nil, shouldCompressOutput{ConversationID: conv, Decision: d}, nil
}

func (s *session) addMessage(ctx context.Context, _ *mcp.CallToolRequest, in addMessageInput) (*mcp.CallToolResult, any, error) {
	if err := checkUUID("conversation_id", in.ConversationID, false); err != nil {
		return nil, nil, err
	}
	// Check the message before a conversation is created for it.
	switch {
	case strings.TrimSpace(in.Role) == "":
		return nil, nil, invalid("role is required")
	case strings.TrimSpace(in.Content) == "":
		return nil, nil, invalid("content is required")
	}
	conv, err := s.conversation(ctx, in.ConversationID, true)
	if err != nil {
		return nil, nil, err
	}
	t, err := s.opts.Memory.AddMessage(ctx, s.opts.TenantID, conv, in.Role, in.Content)
	if err != nil {
		return nil, nil, err
	}
	d, err := s.opts.Memory.ShouldCompress(ctx, s.opts.TenantID, conv, 0, 0)
	if err != nil {
		return nil, nil, err
	}
	return nil, addMessageOutput{ConversationID: conv, Seq: t.Seq, Tokens: t.Tokens, Decision: d}, nil
}

func (s *session) getContext(ctx context.Context, _ *mcp.CallToolRequest, in getContextInput) (*mcp.CallToolResult, any, error) {
	if err := checkUUID("conversation_id", in.ConversationID, false); err != nil {
		return nil, nil, err
	}
	if err := checkRange("budget_tokens", in.BudgetTokens, 0, maxTokensArg); err != nil {
		return nil, nil, err
	}
	if err := checkRange("context_window", in.ContextWindow, 0, maxTokensArg); err != nil {
		return nil, nil, err
	}
	budget := in.BudgetTokens
	if budget == 0 {
		budget = s.opts.Memory.TargetTokens(in.ContextWindow)
	}
	conv, ok, err := s.existingConversation(ctx, in.ConversationID)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		// No conversation yet: an empty memory has an empty context.
		c := convmemory.Context{Items: []convmemory.ContextItem{}, Budget: budget}
		return nil, contextOutput{Context: c, Text: c.Text(), Compression: "skipped"}, nil
	}
	compress := false
	if in.Compress != nil {
		compress = *in.Compress
	} else {
		d, err := s.opts.Memory.ShouldCompress(ctx, s.opts.TenantID, conv, in.ContextWindow, 0)
		if err != nil {
			return nil, nil, err
		}
		compress = d.ShouldCompress
	}
	status := "skipped"
	var levels []convmemory.LevelProgress
	if compress {
		if status, levels, err = s.compress(ctx, conv, budget); err != nil {
			return nil, nil, err
		}
	}
	c, err := s.opts.Memory.Context(ctx, s.opts.TenantID, conv, budget)
	if err != nil {
		return nil, nil, err
	}
	if c.Truncated && !compress && in.Compress == nil {
		// Compression is not due, but the conversation does not fit the
		// budget without summaries: make them rather than drop its start.
		if status, levels, err = s.compress(ctx, conv, budget); err != nil {
			return nil, nil, err
		}
		if c, err = s.opts.Memory.Context(ctx, s.opts.TenantID, conv, budget); err != nil {
			return nil, nil, err
		}
	}
	return nil, contextOutput{Context: c, Text: c.Text(), Compression: status, Levels: levels}, nil
}

// compress compresses conv to fit budget and says how far it got: done,
// or running (the summaries arrive in the background) with the levels'
// progress.
func (s *session) compress(ctx context.Context, conv string, budget int) (string, []convmemory.LevelProgress, error) {
	job, err := s.opts.Memory.CompressToBudget(ctx, s.opts.TenantID, conv, budget)
	if err != nil {
		return "", nil, err
	}
	p, err := s.opts.Memory.Progress(ctx, job)
	if err != nil {
		return "", nil, err
	}
	if p.Done {
		return "done", nil, nil
	}
	return "running", p.Levels, nil
}

func (s *session) search(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, any, error) {
	if err := checkUUID("conversation_id", in.ConversationID, false); err != nil {
		return nil, nil, err
	}
	if err := checkRange("k", in.K, 0, maxK); err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, nil, invalid("query is required")
	}
	out := searchOutput{Query: in.Query, Scope: in.Scope, Hits: []convmemory.Hit{}}
	switch in.Scope {
	case "", scopeConversation:
		out.Scope = scopeConversation
		conv, ok, err := s.existingConversation(ctx, in.ConversationID)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			// Before the first message there is nothing to find.
			return nil, out, nil
		}
		out.ConversationID = conv
	case scopeAll:
		if in.ConversationID != "" {
			return nil, nil, invalid("scope all searches every conversation: leave out conversation_id")
		}
	default:
		return nil, nil, invalid("scope %q: want conversation or all", truncate(in.Scope, 40))
	}
	hits, err := s.opts.Memory.Search(ctx, s.opts.TenantID, out.ConversationID, in.Query, in.K)
	if err != nil {
		return nil, nil, err
	}
	if hits != nil {
		out.Hits = hits
	}
	return nil, out, nil
}

func (s *session) stats(ctx context.Context, _ *mcp.CallToolRequest, in statsInput) (*mcp.CallToolResult, any, error) {
	if err := checkUUID("conversation_id", in.ConversationID, false); err != nil {
		return nil, nil, err
	}
	conv, ok, err := s.existingConversation(ctx, in.ConversationID)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		// An empty memory: no turns, nothing compressed (ratio 1, as for
		// an empty conversation).
		return nil, convmemory.Stats{SummaryNodes: map[int]int{}, CompressionRatio: 1}, nil
	}
	st, err := s.opts.Memory.Stats(ctx, s.opts.TenantID, conv)
	if err != nil {
		return nil, nil, err
	}
	return nil, st, nil
}

// existingConversation picks the conversation a read-only tool works on,
// as conversation does, without creating one: ok is false when none was
// given and the tenant has none yet, which is an empty memory, not an
// error. A given conversation that does not exist is still an error.
func (s *session) existingConversation(ctx context.Context, given string) (id string, ok bool, err error) {
	id, err = s.conversation(ctx, given, false)
	switch {
	case err == nil:
		return id, true, nil
	case given == "" && errors.Is(err, convmemory.ErrNotFound):
		return "", false, nil
	default:
		return "", false, err
	}
}
