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

// fit makes items fit budget. When they are too large the oldest items
// are dropped (truncated). Otherwise the newest summaries are opened into
// what they summarise, newest first, for as long as the result still
// fits: the context ends in raw recent turns and older parts stay
// summarised. Opening stops at the first summary that does not fit, so
// the raw part is one unbroken run up to the end.
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
	for i := len(out) - 1; i >= 0; {
		it := out[i]
		if len(it.kids) == 0 {
			i--
			continue
		}
		delta := itemTokens(it.kids) - it.ref.Tokens
		if total+delta > budget {
			break
		}
		out = slices.Concat(out[:i], it.kids, out[i+1:])
		total += delta
		i += len(it.kids) - 1
	}
	return out, false
}
