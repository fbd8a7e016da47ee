package convmemory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/errdefs"
)

// Service is the memory API the CLI, the MCP server and agent-api use.
// Every call is tenant-scoped.
type Service struct {
	e   *Engine
	run Runner
}

// NewService returns a Service that runs compressions with run.
func NewService(e *Engine, run Runner) *Service { return &Service{e: e, run: run} }

// Engine returns the service's engine.
func (s *Service) Engine() *Engine { return s.e }

// Limits of the inputs.
const (
	MaxMessageRunes = 200_000
	MaxRoleRunes    = 64
	MaxTitleRunes   = 300
	MaxQueryRunes   = 1000
)

// StartChat creates a chat conversation.
func (s *Service) StartChat(ctx context.Context, tenantID, title string) (conversation.Conversation, error) {
	if err := checkText("title", title, MaxTitleRunes, true); err != nil {
		return conversation.Conversation{}, err
	}
	c, err := s.e.st.CreateConversation(ctx, tenantID, conversation.KindChat, "", strings.TrimSpace(title))
	return c, mapErr(err)
}

// StartMeeting returns the meeting's conversation (created on first use)
// with its transcripts copied in.
func (s *Service) StartMeeting(ctx context.Context, tenantID, meetingID string) (conversation.Conversation, error) {
	if !validUUID(meetingID) {
		return conversation.Conversation{}, fmt.Errorf("%w: meeting id %q is not a UUID", ErrInvalid, meetingID)
	}
	c, err := s.e.st.MeetingConversation(ctx, tenantID, meetingID)
	if err != nil {
		return conversation.Conversation{}, mapErr(err)
	}
	if _, err := s.sync(ctx, c); err != nil {
		return conversation.Conversation{}, err
	}
	return c, nil
}

// List returns the tenant's newest conversations.
func (s *Service) List(ctx context.Context, tenantID string, limit int) ([]conversation.Conversation, error) {
	cs, err := s.e.st.ListConversations(ctx, tenantID, limit)
	return cs, mapErr(err)
}

// Get returns a conversation; a meeting's is brought up to date with the
// meeting's transcripts.
func (s *Service) Get(ctx context.Context, tenantID, id string) (conversation.Conversation, error) {
	if !validUUID(id) {
		return conversation.Conversation{}, fmt.Errorf("%w: conversation id %q is not a UUID", ErrInvalid, id)
	}
	c, err := s.e.st.GetConversation(ctx, tenantID, id)
	if err != nil {
		return conversation.Conversation{}, mapErr(err)
	}
	if _, err := s.sync(ctx, c); err != nil {
		return conversation.Conversation{}, err
	}
	return c, nil
}

// sync copies a meeting's new transcripts into its turns.
func (s *Service) sync(ctx context.Context, c conversation.Conversation) (int, error) {
	if c.Kind != conversation.KindMeeting || c.MeetingID == nil {
		return 0, nil
	}
	next, err := s.e.st.NextTurnSeq(ctx, c.TenantID, c.ID)
	if err != nil {
		return 0, err
	}
	added := 0
	for {
		ts, err := s.e.st.MeetingLines(ctx, c.TenantID, *c.MeetingID, next-1, 5000)
		if err != nil {
			return added, mapErr(err)
		}
		if len(ts) == 0 {
			return added, nil
		}
		nodes := make([]conversation.NewNode, len(ts))
		for i, t := range ts {
			text := encodeTurn(t.Speaker, t.Text)
			nodes[i] = conversation.NewNode{Seq: t.Seq, Text: text, Tokens: s.e.count.Count(renderTurn(cleanSpeaker(t.Speaker), t.Text))}
		}
		n, err := s.e.st.AppendTurns(ctx, c.TenantID, c.ID, nodes)
		if err != nil {
			return added, mapErr(err)
		}
		added += n
		next = ts[len(ts)-1].Seq + 1
	}
}

// AddMessage appends a message to a chat conversation and returns it as
// a turn.
func (s *Service) AddMessage(ctx context.Context, tenantID, convID, role, content string) (Turn, error) {
	role = cleanSpeaker(role)
	if err := checkText("role", role, MaxRoleRunes, false); err != nil {
		return Turn{}, err
	}
	if err := checkText("content", content, MaxMessageRunes, false); err != nil {
		return Turn{}, err
	}
	c, err := s.Get(ctx, tenantID, convID)
	if err != nil {
		return Turn{}, err
	}
	if c.Kind != conversation.KindChat {
		return Turn{}, fmt.Errorf("%w: conversation %s is a meeting; its turns come from the meeting's transcripts", ErrNotChat, convID)
	}
	t := Turn{Speaker: role, Text: content, Tokens: s.e.count.Count(renderTurn(role, content))}
	// The store orders concurrent adders (in every process) itself; none
	// is refused.
	seq, err := s.e.st.AppendMessage(ctx, tenantID, convID, encodeTurn(role, content), t.Tokens)
	if err != nil {
		return Turn{}, mapErr(err)
	}
	t.Seq = seq
	return t, nil
}

// Stats describe a conversation's memory.
type Stats struct {
	ConversationID string `json:"conversation_id"`
	Kind           string `json:"kind"`
	Title          string `json:"title"`
	Turns          int    `json:"turns"`
	// RawTokens is the size of every turn.
	RawTokens int `json:"raw_tokens"`
	// LiveTokens is the size of the context as it stands: stored
	// summaries where they exist, raw turns elsewhere.
	LiveTokens int `json:"live_tokens"`
	// SummaryNodes counts summaries per level ("1", "2", ...).
	SummaryNodes map[int]int `json:"summary_nodes"`
	Levels       int         `json:"levels"`
	Chunks       int         `json:"chunks"`
	// CompressionRatio is LiveTokens / RawTokens (1 when empty).
	CompressionRatio float64 `json:"compression_ratio"`
	ContextWindow    int     `json:"context_window"`
}

// Stats returns the conversation's statistics.
func (s *Service) Stats(ctx context.Context, tenantID, convID string) (Stats, error) {
	c, err := s.Get(ctx, tenantID, convID)
	if err != nil {
		return Stats{}, err
	}
	snap, live, err := s.e.snapshotLive(ctx, tenantID, convID)
	if err != nil {
		return Stats{}, mapErr(err)
	}
	st := Stats{ConversationID: c.ID, Kind: c.Kind, Title: c.Title, Turns: len(snap.turns),
		Chunks: len(snap.chunks), SummaryNodes: map[int]int{}, ContextWindow: s.e.cfg.ContextWindow}
	for _, t := range snap.turns {
		st.RawTokens += t.Tokens
	}
	for level, nodes := range snap.nodes {
		st.SummaryNodes[level] = len(nodes)
		st.Levels = max(st.Levels, level)
	}
	st.LiveTokens = live
	st.CompressionRatio = 1
	if st.RawTokens > 0 {
		st.CompressionRatio = float64(st.LiveTokens) / float64(st.RawTokens)
	}
	return st, nil
}

// Decision is ShouldCompress's answer.
type Decision struct {
	ShouldCompress bool `json:"should_compress"`
	// CurrentTokens is the live context compared: the caller's count when
	// it gave one, else the last context plus the turns added since.
	CurrentTokens   int     `json:"current_tokens"`
	ContextWindow   int     `json:"context_window"`
	ThresholdTokens int     `json:"threshold_tokens"`
	TargetTokens    int     `json:"target_tokens"`
	Usage           float64 `json:"usage"`
}

// ShouldCompress says whether the live context is above CompressAt of the
// window (window <= 0: the configured one). currentTokens > 0 is the
// caller's own count of its live context; otherwise it is what the
// caller holds: the last context returned by Context plus the turns
// added since, or, before any context, the conversation's live tokens.
func (s *Service) ShouldCompress(ctx context.Context, tenantID, convID string, window, currentTokens int) (Decision, error) {
	if window < 0 || currentTokens < 0 {
		return Decision{}, fmt.Errorf("%w: context_window and current_tokens must not be negative", ErrInvalid)
	}
	if window == 0 {
		window = s.e.cfg.ContextWindow
	}
	d := Decision{ContextWindow: window, CurrentTokens: currentTokens,
		ThresholdTokens: int(float64(window) * s.e.cfg.CompressAt), TargetTokens: s.TargetTokens(window)}
	if currentTokens == 0 {
		n, err := s.liveTokens(ctx, tenantID, convID)
		if err != nil {
			return Decision{}, err
		}
		d.CurrentTokens = n
	} else if _, err := s.Get(ctx, tenantID, convID); err != nil {
		return Decision{}, err
	}
	d.Usage = float64(d.CurrentTokens) / float64(window)
	d.ShouldCompress = d.CurrentTokens > d.ThresholdTokens
	return d, nil
}

// TargetTokens is the compressed size for a window: CompressTo of it.
func (s *Service) TargetTokens(window int) int {
	if window <= 0 {
		window = s.e.cfg.ContextWindow
	}
	return max(int(float64(window)*s.e.cfg.CompressTo), 1)
}

// Compress starts compressing the conversation so its summaries fit
// CompressTo of window (window <= 0: the configured one). With the Queue
// runner it returns once the first units are queued; with Inline, when
// the job is done. Finished nodes are never redone.
func (s *Service) Compress(ctx context.Context, tenantID, convID string, window int) (Job, error) {
	if window < 0 {
		return Job{}, fmt.Errorf("%w: context_window must not be negative", ErrInvalid)
	}
	if _, err := s.Get(ctx, tenantID, convID); err != nil {
		return Job{}, err
	}
	job := Job{TenantID: tenantID, ConversationID: convID, TargetTokens: s.TargetTokens(window), Epoch: time.Now().UnixNano()}
	if err := s.run.Start(ctx, job); err != nil {
		return job, fmt.Errorf("compress %s: %w", convID, err)
	}
	return job, nil
}

// Progress says where the job stands.
func (s *Service) Progress(ctx context.Context, job Job) (Plan, error) {
	p, err := s.e.Plan(ctx, job)
	return p, mapErr(err)
}

func checkText(field, v string, maxRunes int, emptyOK bool) error {
	switch {
	case !utf8.ValidString(v):
		return fmt.Errorf("%w: %s must be valid UTF-8", ErrInvalid, field)
	case strings.IndexByte(v, 0) >= 0:
		return fmt.Errorf("%w: %s must not contain NUL", ErrInvalid, field)
	case !emptyOK && strings.TrimSpace(v) == "":
		return fmt.Errorf("%w: %s is required", ErrInvalid, field)
	case utf8.RuneCountInString(v) > maxRunes:
		return fmt.Errorf("%w: %s is longer than %d characters", ErrInvalid, field, maxRunes)
	}
	return nil
}

func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
	}
	return true
}

// mapErr turns store sentinels into this package's.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errdefs.ErrNotFound):
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	case errors.Is(err, errdefs.ErrInvalid):
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return err
}
