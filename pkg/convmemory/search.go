package convmemory

import (
	"context"
	"fmt"

	"github.com/mithub/mithub/pkg/textutil"
)

// Hit is a search result: a turn, or a summary with the turns it covers.
type Hit struct {
	ConversationID string `json:"conversation_id"`
	// Kind is "turn" or "summary".
	Kind  string `json:"kind"`
	Level int    `json:"level"`
	// Seq is the turn's position in the conversation (from 0), or the
	// summary's position in its level.
	Seq int `json:"seq"`
	// FromTurn and ToTurn are the first and last turn covered: Seq for a
	// turn, -1 when a summary's children are no longer stored.
	FromTurn int     `json:"from_turn"`
	ToTurn   int     `json:"to_turn"`
	Speaker  string  `json:"speaker,omitempty"`
	Text     string  `json:"text"`
	Score    float64 `json:"score"`
}

// maxSearchTerms bounds the terms of a query.
const maxSearchTerms = 32

// Search ranks the turns and summaries of one conversation (convID), or
// of all the tenant's conversations (convID ""), by Okapi BM25 against the
// query's terms and returns the best k, best first. Query and nodes are
// tokenized alike (textutil.Terms: English stop words dropped, Korean
// particles stripped, so "예산은" finds "예산을"), and every node sharing a
// term is scored, however old (docs/architecture.md §7).
func (s *Service) Search(ctx context.Context, tenantID, convID, query string, k int) ([]Hit, error) {
	if err := checkText("query", query, MaxQueryRunes, false); err != nil {
		return nil, err
	}
	if k <= 0 {
		k = 10
	}
	if k > 100 {
		return nil, fmt.Errorf("%w: k must be at most 100", ErrInvalid)
	}
	if convID != "" {
		if _, err := s.Get(ctx, tenantID, convID); err != nil {
			return nil, err
		}
	}
	terms := searchTerms(query)
	if len(terms) == 0 {
		return nil, fmt.Errorf("%w: query has no searchable word", ErrInvalid)
	}
	ms, err := s.e.st.SearchNodes(ctx, tenantID, convID, terms, k)
	if err != nil {
		return nil, mapErr(err)
	}
	hits := make([]Hit, len(ms))
	for i, m := range ms {
		h := Hit{ConversationID: m.ConversationID, Kind: "summary", Level: m.Level, Seq: m.Seq,
			FromTurn: m.FromTurn, ToTurn: m.ToTurn, Text: m.Text, Score: m.Score}
		if m.Level == 0 {
			h.Kind = "turn"
			h.Speaker, h.Text = decodeTurn(m.Text)
		}
		hits[i] = h
	}
	return hits, nil
}

// searchTerms are the query's distinct search terms in order, at most
// maxSearchTerms.
func searchTerms(q string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range textutil.Terms(nil, q) {
		if seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
		if len(out) == maxSearchTerms {
			break
		}
	}
	return out
}
