package convmemory

import (
	"context"
	"math"

	"github.com/mithub/mithub/pkg/conversation"
)

// turnPlan is the engine's cached view of one conversation: its turns
// (without text) cut into chunks, and its summaries as of a stamp. Turns
// are append-only, so a view is brought up to date by reading only the
// turns added since; the summaries are reread only when their stamp
// changes. A call costs one stamp query plus what changed, not a reread
// of the conversation (docs/architecture.md §7).
type turnPlan struct {
	// next is the seq after the last turn held.
	next      int
	turns     []conversation.NodeRef
	chunks    []chunk
	tailStart int

	sumCount  int
	sumLastID int64
	sums      []conversation.NodeRef
	sumsRead  bool

	// live is the cover's size when the view held liveTurns turns and
	// the summaries of liveStamp.
	live      int
	liveTurns int
	liveStamp [2]int64
	liveOK    bool
}

// maxIncrement is the most new turns a view reads with their text; a
// bigger gap (a long meeting just synced) rereads the refs instead.
const maxIncrement = 256

// extend appends the refs after v.next and cuts the new closed chunks.
// Only the cached entry is extended, under Engine.mu: views handed out
// earlier are shorter, so the appends never touch what they hold.
func (v turnPlan) extend(refs []conversation.NodeRef, chunkTokens int) turnPlan {
	grew := false
	for _, r := range refs {
		if r.Seq < v.next {
			continue
		}
		v.turns = append(v.turns, r)
		v.next = r.Seq + 1
		grew = true
	}
	if !grew {
		return v
	}
	more, tail := planChunks(v.turns[v.tailStart:], chunkTokens)
	for _, c := range more {
		v.chunks = append(v.chunks, chunk{start: c.start + v.tailStart, end: c.end + v.tailStart, tokens: c.tokens})
	}
	v.tailStart += tail
	return v
}

// view returns the conversation's up-to-date cached view.
func (e *Engine) view(ctx context.Context, tenantID, convID string) (turnPlan, error) {
	st, err := e.st.MemoryStamp(ctx, tenantID, convID)
	if err != nil {
		return turnPlan{}, err
	}
	key := tenantID + "/" + convID
	e.mu.Lock()
	v, ok := e.turns[key]
	e.mu.Unlock()
	switch {
	case ok && st.NextTurnSeq == v.next:
	case ok && st.NextTurnSeq > v.next && st.NextTurnSeq-v.next <= maxIncrement:
		nodes, err := e.st.NodesAtLevel(ctx, tenantID, convID, 0, v.next, st.NextTurnSeq)
		if err != nil {
			return turnPlan{}, err
		}
		refs := make([]conversation.NodeRef, len(nodes))
		for i, n := range nodes {
			refs[i] = conversation.NodeRef{ID: n.ID, Level: n.Level, Seq: n.Seq, Tokens: n.Tokens, ChildIDs: n.ChildIDs}
		}
		e.mu.Lock()
		cur, ok := e.turns[key]
		if ok && cur.next >= v.next {
			v = cur.extend(refs, e.cfg.ChunkTokens)
			e.turns[key] = v
		}
		e.mu.Unlock()
		if !ok || v.next < st.NextTurnSeq {
			// The entry was dropped meanwhile: start over.
			if v, err = e.reloadTurns(ctx, tenantID, convID); err != nil {
				return turnPlan{}, err
			}
		}
	default:
		if v, err = e.reloadTurns(ctx, tenantID, convID); err != nil {
			return turnPlan{}, err
		}
	}
	if !v.sumsRead || v.sumCount != st.Summaries || v.sumLastID != st.LastSummaryID {
		sums, err := e.st.NodeRefs(ctx, tenantID, convID, 1, math.MaxInt32)
		if err != nil {
			return turnPlan{}, err
		}
		v.sums, v.sumsRead, v.sumCount, v.sumLastID = sums, true, len(sums), 0
		for _, s := range sums {
			v.sumLastID = max(v.sumLastID, s.ID)
		}
		e.mu.Lock()
		if cur, ok := e.turns[key]; ok && cur.next == v.next {
			cur.sums, cur.sumsRead, cur.sumCount, cur.sumLastID = v.sums, true, v.sumCount, v.sumLastID
			e.turns[key] = cur
		}
		e.mu.Unlock()
	}
	return v, nil
}

// reloadTurns reads every turn's ref and caches a new view.
func (e *Engine) reloadTurns(ctx context.Context, tenantID, convID string) (turnPlan, error) {
	refs, err := e.st.NodeRefs(ctx, tenantID, convID, 0, 0)
	if err != nil {
		return turnPlan{}, err
	}
	v := turnPlan{}.extend(refs, e.cfg.ChunkTokens)
	e.mu.Lock()
	if len(e.turns) >= maxCachedPlans {
		clear(e.turns)
	}
	e.turns[tenantID+"/"+convID] = v
	e.mu.Unlock()
	return v, nil
}

// liveTokens is the size of snap's cover (the conversation's live
// context), snap being v's snapshot. The cover is computed in full only
// when the summaries changed since the last time: while they hold, the
// turns appended since add just their own tokens, as they are raw (the
// chunks they close have no summary yet).
func (e *Engine) liveTokens(tenantID, convID string, v turnPlan, snap *snapshot) int {
	stamp := [2]int64{int64(v.sumCount), v.sumLastID}
	if v.liveOK && v.liveStamp == stamp && v.liveTurns <= len(v.turns) {
		live := v.live
		for _, t := range v.turns[v.liveTurns:] {
			live += t.Tokens
		}
		return live
	}
	live := itemTokens(snap.cover(e.cfg.FanIn))
	key := tenantID + "/" + convID
	e.mu.Lock()
	if cur, ok := e.turns[key]; ok && cur.sumsRead && cur.sumCount == v.sumCount && cur.sumLastID == v.sumLastID && len(cur.turns) >= len(v.turns) {
		cur.live, cur.liveTurns, cur.liveStamp, cur.liveOK = live, len(v.turns), stamp, true
		e.turns[key] = cur
	}
	e.mu.Unlock()
	return live
}
