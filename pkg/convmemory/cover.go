package convmemory

import (
	"maps"
	"slices"

	"github.com/mithub/mithub/pkg/conversation"
)

// item is one piece of a conversation's context: a raw turn (level 0) or
// a summary node whose kids are what it summarises, one level down.
type item struct {
	level int
	ref   conversation.NodeRef
	// first and last+1 are the turn indexes the item spans.
	first, last int
	kids        []*item
}

func (s *snapshot) rawItems(from, to int) []*item {
	out := make([]*item, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, &item{ref: s.turns[i], first: i, last: i + 1})
	}
	return out
}

// cover returns the conversation as the fewest stored nodes: every chunk
// by its summary (or its raw turns while it has none), then runs of
// summaries by their parent wherever a stored parent covers exactly those
// nodes, level by level; the tail stays raw. It is valid at any point of
// a compression, and a partial merge stays usable after the conversation
// grows (it still summarises the nodes it names).
func (s *snapshot) cover(fanIn int) []*item {
	var cur []*item
	for i, c := range s.chunks {
		raw := s.rawItems(c.start, c.end)
		if n, ok := s.valid(1, i, s.chunkIDs(c)); ok {
			cur = append(cur, &item{level: 1, ref: n, first: c.start, last: c.end, kids: raw})
			continue
		}
		cur = append(cur, raw...)
	}
	top := 0
	if len(s.nodes) > 0 {
		top = slices.Max(slices.Collect(maps.Keys(s.nodes)))
	}
	for level := 1; level < top; level++ {
		parents := s.nodes[level+1]
		if len(parents) == 0 {
			break
		}
		next := make([]*item, 0, len(cur))
		for i := 0; i < len(cur); {
			it := cur[i]
			if it.level == level && it.ref.Seq%fanIn == 0 {
				if p, ok := parents[it.ref.Seq/fanIn]; ok && runMatches(cur[i:], level, p.ChildIDs) {
					k := len(p.ChildIDs)
					next = append(next, &item{level: level + 1, ref: p, first: it.first, last: cur[i+k-1].last, kids: cur[i : i+k]})
					i += k
					continue
				}
			}
			next = append(next, it)
			i++
		}
		cur = next
	}
	return append(cur, s.rawItems(s.tailStart, len(s.turns))...)
}

func runMatches(items []*item, level int, ids []int64) bool {
	if len(ids) == 0 || len(items) < len(ids) {
		return false
	}
	for k, id := range ids {
		if items[k].level != level || items[k].ref.ID != id {
			return false
		}
	}
	return true
}

func itemTokens(items []*item) int {
	n := 0
	for _, it := range items {
		n += it.ref.Tokens
	}
	return n
}

// rawShare is the part of a context's budget the recent turns may take
// verbatim before the summaries of older parts are opened.
const rawShare = 0.3

// fit makes items fit budget. When they are too large the oldest items
// are dropped (truncated). Otherwise the budget is filled in three
// passes: the newest summaries are opened into what they summarise,
// newest first, until the recent turns verbatim take rawShare of the
// budget; then summaries of level 2 and up are opened into their more
// specific children, coarsest level first and newest first within a
// level, each one that still fits; then the newest items are opened
// again with what is left. The raw part is one unbroken run up to the
// end, and a conversation that fits the budget comes back whole.
func fit(items []*item, budget int) (out []*item, truncated bool) {
	total := itemTokens(items)
	out = slices.Clone(items)
	for total > budget && len(out) > 0 {
		total -= out[0].ref.Tokens
		out = out[1:]
		truncated = true
	}
	if truncated {
		return out, true
	}
	out, total = openRecent(out, total, budget, int(float64(budget)*rawShare))
	out, total = openSummaries(out, total, budget)
	out, _ = openRecent(out, total, budget, budget)
	return out, false
}

// openRecent opens items into their kids from the end, newest first,
// while the total stays within budget and the turns opened from level-1
// summaries keep the raw tokens within rawBudget; it stops at the first
// item that does not fit.
func openRecent(out []*item, total, budget, rawBudget int) ([]*item, int) {
	raw := 0
	for i := len(out) - 1; i >= 0; {
		it := out[i]
		if len(it.kids) == 0 {
			raw += it.ref.Tokens
			i--
			continue
		}
		kids := itemTokens(it.kids)
		delta := kids - it.ref.Tokens
		if total+delta > budget || it.level == 1 && raw+kids > rawBudget {
			break
		}
		out = slices.Concat(out[:i], it.kids, out[i+1:])
		total += delta
		i += len(it.kids) - 1
	}
	return out, total
}

// openSummaries opens summaries of level 2 and up into their children,
// coarsest level first and newest first within a level, each one whose
// children still fit the budget.
func openSummaries(out []*item, total, budget int) ([]*item, int) {
	top := 0
	for _, it := range out {
		top = max(top, it.level)
	}
	for level := top; level >= 2; level-- {
		for i := len(out) - 1; i >= 0; i-- {
			it := out[i]
			if it.level != level || len(it.kids) == 0 {
				continue
			}
			delta := itemTokens(it.kids) - it.ref.Tokens
			if total+delta > budget {
				continue
			}
			out = slices.Concat(out[:i], it.kids, out[i+1:])
			total += delta
		}
	}
	return out, total
}
