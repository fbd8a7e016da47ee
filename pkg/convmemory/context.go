package convmemory

import (
	"cmp"
	"context"
	"fmt"
	"math"
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

// Hit is a search result.
type Hit struct {
	ConversationID string  `json:"conversation_id"`
	Kind           string  `json:"kind"`
	Level          int     `json:"level"`
	Seq            int     `json:"seq"`
	Speaker        string  `json:"speaker,omitempty"`
	Text           string  `json:"text"`
	Score          float64 `json:"score"`
}

// maxSearchTerms bounds the terms of a query.
const maxSearchTerms = 12

// Search finds turns and summaries containing the query's terms, in one
// conversation (convID) or all of the tenant's (convID ""), best first.
// Matching is by substring, so Korean words match with their particles.
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
	nodes, err := s.e.st.SearchNodes(ctx, tenantID, convID, terms, 1000)
	if err != nil {
		return nil, mapErr(err)
	}
	df := make([]int, len(terms))
	lowered := make([]string, len(nodes))
	for i, n := range nodes {
		lowered[i] = strings.ToLower(n.Text)
		for j, t := range terms {
			if strings.Contains(lowered[i], t) {
				df[j]++
			}
		}
	}
	hits := make([]Hit, 0, len(nodes))
	for i, n := range nodes {
		score := 0.0
		for j, t := range terms {
			if c := strings.Count(lowered[i], t); c > 0 {
				idf := math.Log(1 + float64(len(nodes))/float64(df[j]))
				score += idf * float64(c) / (float64(c) + 1.2)
			}
		}
		score /= 1 + math.Log1p(float64(n.Tokens)/100)
		h := Hit{ConversationID: n.ConversationID, Level: n.Level, Seq: n.Seq, Score: score, Kind: "summary", Text: n.Text}
		if n.Level == 0 {
			h.Kind = "turn"
			h.Speaker, h.Text = decodeTurn(n.Text)
		}
		hits = append(hits, h)
	}
	sortHits(hits)
	return hits[:min(k, len(hits))], nil
}

func sortHits(hits []Hit) {
	// Insertion of a stable order: score, then newer level/seq.
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && better(hits[j], hits[j-1]); j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
}

func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Level != b.Level {
		return a.Level > b.Level
	}
	return a.Seq < b.Seq
}

// koreanParticles are endings dropped from a Korean query word so it also
// matches other inflections ("예산은" finds "예산을").
var koreanParticles = []string{"에서", "으로", "이다", "은", "는", "이", "가", "을", "를", "에", "의", "도", "로", "와", "과"}

// searchTerms lowercases the query's words, drops one-letter Latin words,
// strips Korean particles and dedupes.
func searchTerms(q string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || isWordRune(r))
	}) {
		w = strings.Trim(w, "-_.")
		if isHangulWord(w) {
			for _, p := range koreanParticles {
				if stem, ok := strings.CutSuffix(w, p); ok && len([]rune(stem)) >= 1 && len([]rune(w)) > 2 {
					w = stem
					break
				}
			}
		} else if len([]rune(w)) < 2 {
			continue
		}
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == maxSearchTerms {
			break
		}
	}
	return out
}

func isWordRune(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127 && !isSpaceOrPunct(r)
}

func isSpaceOrPunct(r rune) bool {
	return strings.ContainsRune(" \t\n\r\u00a0\u3000,.;:!?\"'()[]{}<>“”‘’…·、。，！？「」『』", r)
}

func isHangulWord(w string) bool {
	for _, r := range w {
		if r >= 0xAC00 && r <= 0xD7A3 {
			return true
		}
	}
	return false
}
