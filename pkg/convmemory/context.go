package convmemory

import (
	"context"
	"fmt"
	"strings"
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
// (budget <= 0: the compression target of the configured window). It
// uses the summaries stored so far, opening the newest ones into their
// turns while the budget allows.
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
	return out, nil
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
