package convmemory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/tokens"
)

// Store is the persistence memory needs (package store implements it on
// PostgreSQL).
type Store = conversation.Store

// Job is one compression run of a conversation.
type Job struct {
	TenantID       string `json:"tenant_id"`
	ConversationID string `json:"conversation_id"`
	// TargetTokens is the budget the summaries must fit.
	TargetTokens int `json:"target_tokens"`
	// Epoch identifies the run (Queue drops tasks of older runs).
	Epoch int64 `json:"epoch"`
}

// Engine plans and writes summary nodes. It is safe for concurrent use.
type Engine struct {
	st    Store
	count tokens.Counter
	sum   Summarizer
	cfg   Config

	// mu guards turns, the views of recently used conversations by
	// tenant and id (view.go).
	mu    sync.Mutex
	turns map[string]turnPlan
	// held is, per tenant and conversation, the last context returned
	// (guarded by mu).
	held map[string]heldContext
}

// heldContext is what a caller holds after a context: its tokens, and
// the last turn it includes.
type heldContext struct {
	tokens   int
	lastTurn int
}

// maxCachedPlans bounds the chunk plan cache.
const maxCachedPlans = 64

// NewEngine returns an Engine; cfg's zero fields take the defaults.
func NewEngine(st Store, count tokens.Counter, sum Summarizer, cfg Config) *Engine {
	return &Engine{st: st, count: count, sum: sum, cfg: cfg.WithDefaults(), turns: map[string]turnPlan{},
		held: map[string]heldContext{}}
}

// Config is the engine's configuration with defaults applied.
func (e *Engine) Config() Config { return e.cfg }

func (e *Engine) snapshot(ctx context.Context, tenantID, convID string) (*snapshot, error) {
	v, err := e.view(ctx, tenantID, convID)
	if err != nil {
		return nil, err
	}
	return newSnapshot(v.turns, v.chunks, v.tailStart, v.sums), nil
}

// snapshotLive is snapshot with the size of its cover (liveTokens).
func (e *Engine) snapshotLive(ctx context.Context, tenantID, convID string) (*snapshot, int, error) {
	v, err := e.view(ctx, tenantID, convID)
	if err != nil {
		return nil, 0, err
	}
	snap := newSnapshot(v.turns, v.chunks, v.tailStart, v.sums)
	return snap, e.liveTokens(tenantID, convID, v, snap), nil
}

// Plan says where the job stands and which units can run now.
func (e *Engine) Plan(ctx context.Context, job Job) (Plan, error) {
	s, err := e.snapshot(ctx, job.TenantID, job.ConversationID)
	if err != nil {
		return Plan{}, err
	}
	return s.plan(job.TargetTokens, e.cfg.FanIn), nil
}

// Process writes the node of u unless a node with the same children is
// already stored (then it does nothing: finished work is never redone).
// A unit whose children are gone (replaced since it was planned) is
// skipped; the next plan covers it. It reports whether it called the
// summarizer.
func (e *Engine) Process(ctx context.Context, job Job, u Unit) (bool, error) {
	if u.Level < 1 || len(u.ChildIDs) == 0 {
		return false, fmt.Errorf("%w: unit level %d with %d children", ErrInvalid, u.Level, len(u.ChildIDs))
	}
	have, err := e.st.NodesAtLevel(ctx, job.TenantID, job.ConversationID, u.Level, u.Seq, u.Seq+1)
	if err != nil {
		return false, err
	}
	if len(have) == 1 && slices.Equal(have[0].ChildIDs, u.ChildIDs) {
		return false, nil
	}
	kids, err := e.st.NodesByID(ctx, job.TenantID, job.ConversationID, u.ChildIDs)
	if err != nil {
		return false, err
	}
	ordered, ok := inOrder(kids, u.ChildIDs, u.Level-1)
	if !ok {
		return false, nil
	}
	var text string
	if u.Level == 1 {
		turns := make([]Turn, len(ordered))
		for i, n := range ordered {
			sp, txt := decodeTurn(n.Text)
			turns[i] = Turn{Seq: n.Seq, Speaker: sp, Text: txt, Tokens: n.Tokens}
		}
		text, err = e.sum.SummarizeChunk(ctx, turns)
	} else {
		parts := make([]string, len(ordered))
		for i, n := range ordered {
			parts[i] = n.Text
		}
		text, err = e.sum.MergeSummaries(ctx, parts)
	}
	if err != nil {
		return true, fmt.Errorf("node %d/%d of %s: %w", u.Level, u.Seq, job.ConversationID, err)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return true, fmt.Errorf("node %d/%d of %s: %w", u.Level, u.Seq, job.ConversationID, errors.New("empty summary"))
	}
	_, _, err = e.st.PutSummary(ctx, job.TenantID, job.ConversationID, conversation.NewNode{
		Level: u.Level, Seq: u.Seq, Text: text, Tokens: e.count.Count(text), ChildIDs: u.ChildIDs,
	})
	return true, err
}

// inOrder returns nodes in the order of ids, or false when one is
// missing or on the wrong level.
func inOrder(nodes []conversation.Node, ids []int64, level int) ([]conversation.Node, bool) {
	if len(nodes) != len(ids) {
		return nil, false
	}
	byID := make(map[int64]conversation.Node, len(nodes))
	for _, n := range nodes {
		byID[n.ID] = n
	}
	out := make([]conversation.Node, len(ids))
	for i, id := range ids {
		n, ok := byID[id]
		if !ok || n.Level != level {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}
