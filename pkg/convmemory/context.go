package convmemory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/conversation"
)

// ContextItem is one piece of a context: a summary of a run of turns or a
// raw turn.
type ContextItem struct {
	// Kind is "summary" or "turn".
	Kind  string `json:"kind"`
	Level int    `json:"level"`
	// FromTurn and ToTurn are the first and last turn seq covered.
	FromTurn int    `json:"from_turn"`
	ToTurn   int    `json:"to_turn"`
	Speaker  string `json:"speaker,omitempty"`
	Text     string `json:"text"`
	Tokens   int    `json:"tokens"`
}

// Context is a conversation's context within a budget: summaries of the
// older part, then the most recent turns verbatim.
type Context struct {
	ConversationID string        `json:"conversation_id"`
	Items          []ContextItem `json:"items"`
	Tokens         int           `json:"tokens"`
	Budget         int           `json:"budget"`
	// RawTokens is the size of the whole conversation.
	RawTokens int `json:"raw_tokens"`
	// Summaries and RecentTurns count the items of each kind.
	Summaries   int `json:"summaries"`
	RecentTurns int `json:"recent_turns"`
	// Truncated: even the summaries did not fit, the oldest were left
	// out (compress the conversation first).
	Truncated bool `json:"truncated"`
}

// Text renders the context for a model prompt.
func (c Context) Text() string {
	var b strings.Builder
	inTurns := false
	for _, it := range c.Items {
		if it.Kind == "summary" {
			fmt.Fprintf(&b, "[Summary of turns %d-%d]\n%s\n\n", it.FromTurn, it.ToTurn, it.Text)
			inTurns = false
			continue
		}
		if !inTurns {
			b.WriteString("[Recent turns]\n")
			inTurns = true
		}
		b.WriteString(renderTurn(it.Speaker, it.Text))
		b.WriteByte('\n')
	}
	return b.String()
}

// Context returns the conversation's context within budget tokens
// (budget <= 0: the compression target of the configured window), built
// from the summaries stored so far: the recent turns verbatim, then the
// older parts by their most specific summaries that fit (see fit). The
// context is remembered as what the caller holds (see ShouldCompress).
func (s *Service) Context(ctx context.Context, tenantID, convID string, budget int) (Context, error) {
	if budget < 0 {
		return Context{}, fmt.Errorf("%w: budget must not be negative", ErrInvalid)
	}
	if budget == 0 {
		budget = s.TargetTokens(0)
	}
	if _, err := s.Get(ctx, tenantID, convID); err != nil {
		return Context{}, err
	}
	snap, err := s.e.snapshot(ctx, tenantID, convID)
	if err != nil {
		return Context{}, mapErr(err)
	}
	items, truncated := fit(snap.cover(s.e.cfg.FanIn), budget)
	out := Context{ConversationID: convID, Budget: budget, Truncated: truncated, Items: []ContextItem{}}
	for _, t := range snap.turns {
		out.RawTokens += t.Tokens
	}
	ids := make([]int64, len(items))
	for i, it := range items {
		ids[i] = it.ref.ID
	}
	texts, err := s.texts(ctx, tenantID, convID, ids)
	if err != nil {
		return Context{}, err
	}
	for _, it := range items {
		ci := ContextItem{Level: it.level, FromTurn: snap.turns[it.first].Seq, ToTurn: snap.turns[it.last-1].Seq,
			Tokens: it.ref.Tokens, Text: texts[it.ref.ID]}
		if it.level == 0 {
			ci.Kind = "turn"
			ci.Speaker, ci.Text = decodeTurn(ci.Text)
			out.RecentTurns++
		} else {
			ci.Kind = "summary"
			out.Summaries++
		}
		out.Tokens += ci.Tokens
		out.Items = append(out.Items, ci)
	}
	s.hold(tenantID, convID, out)
	return out, nil
}

// maxHeld bounds the remembered contexts.
const maxHeld = 4096

// hold records c as what the caller now holds of the conversation, so
// ShouldCompress counts the context plus the turns added after it.
func (s *Service) hold(tenantID, convID string, c Context) {
	h := heldContext{tokens: c.Tokens, lastTurn: -1}
	if len(c.Items) > 0 {
		h.lastTurn = c.Items[len(c.Items)-1].ToTurn
	}
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if len(s.e.held) >= maxHeld {
		clear(s.e.held)
	}
	s.e.held[tenantID+"/"+convID] = h
}

// liveTokens is what the caller holds of the conversation: the last
// context Context returned plus the turns added since, or, before any
// context, the conversation's cover (summaries where stored, raw turns
// elsewhere).
func (s *Service) liveTokens(ctx context.Context, tenantID, convID string) (int, error) {
	s.e.mu.Lock()
	h, ok := s.e.held[tenantID+"/"+convID]
	s.e.mu.Unlock()
	if !ok {
		st, err := s.Stats(ctx, tenantID, convID)
		return st.LiveTokens, err
	}
	if _, err := s.Get(ctx, tenantID, convID); err != nil {
		return 0, err
	}
	snap, err := s.e.snapshot(ctx, tenantID, convID)
	if err != nil {
		return 0, mapErr(err)
	}
	n := h.tokens
	i, _ := slices.BinarySearchFunc(snap.turns, h.lastTurn+1, func(r conversation.NodeRef, seq int) int { return cmp.Compare(r.Seq, seq) })
	for _, t := range snap.turns[i:] {
		n += t.Tokens
	}
	return n, nil
}

// CompressToBudget starts compressing the conversation so its summaries
// fit budget tokens (budget <= 0: the compression target of the
// configured window), like Compress.
func (s *Service) CompressToBudget(ctx context.Context, tenantID, convID string, budget int) (Job, error) {
	if budget < 0 {
		return Job{}, fmt.Errorf("%w: budget must not be negative", ErrInvalid)
	}
	if budget == 0 {
		budget = s.TargetTokens(0)
	}
	if _, err := s.Get(ctx, tenantID, convID); err != nil {
		return Job{}, err
	}
	job := Job{TenantID: tenantID, ConversationID: convID, TargetTokens: budget, Epoch: time.Now().UnixNano()}
	if err := s.run.Start(ctx, job); err != nil {
		return job, fmt.Errorf("compress %s: %w", convID, err)
	}
	return job, nil
}

func (s *Service) texts(ctx context.Context, tenantID, convID string, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	for start := 0; start < len(ids); start += 5000 {
		nodes, err := s.e.st.NodesByID(ctx, tenantID, convID, ids[start:min(start+5000, len(ids))])
		if err != nil {
			return nil, mapErr(err)
		}
		for _, n := range nodes {
			out[n.ID] = n.Text
		}
	}
	return out, nil
}
