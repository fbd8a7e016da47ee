package convmemory

import (
	"slices"

	"github.com/mithub/mithub/pkg/conversation"
)

// Unit is one summary to write: level 1 summarises a chunk of turns,
// level L>1 merges up to FanIn nodes of level L-1. ChildIDs are the node
// ids it covers, in order.
type Unit struct {
	Level    int     `json:"level"`
	Seq      int     `json:"seq"`
	ChildIDs []int64 `json:"child_ids"`
}

// chunk is a run of turns, turns[start:end] of the snapshot.
type chunk struct {
	start, end int
	tokens     int
}

// planChunks cuts turns into chunks on turn boundaries: a chunk closes as
// soon as it holds at least size tokens, so chunks are ~size tokens and a
// single long turn is a chunk of its own. Only closed chunks are returned;
// the turns after the last one (fewer than size tokens) are the tail.
// Turns only ever get appended, so the chunks of a prefix never change.
func planChunks(turns []conversation.NodeRef, size int) (chunks []chunk, tailStart int) {
	cur := chunk{}
	for i, t := range turns {
		cur.tokens += t.Tokens
		if cur.tokens >= size {
			cur.end = i + 1
			chunks = append(chunks, cur)
			cur = chunk{start: i + 1}
		}
	}
	return chunks, cur.start
}

// snapshot is what the planner knows of a conversation: its turns cut
// into chunks and its summary nodes by level and seq.
type snapshot struct {
	turns     []conversation.NodeRef
	chunks    []chunk
	tailStart int
	// nodes[level][seq], level >= 1.
	nodes map[int]map[int]conversation.NodeRef
}

func newSnapshot(turns []conversation.NodeRef, chunks []chunk, tailStart int, summaries []conversation.NodeRef) *snapshot {
	s := &snapshot{turns: turns, chunks: chunks, tailStart: tailStart, nodes: map[int]map[int]conversation.NodeRef{}}
	for _, n := range summaries {
		if s.nodes[n.Level] == nil {
			s.nodes[n.Level] = map[int]conversation.NodeRef{}
		}
		s.nodes[n.Level][n.Seq] = n
	}
	return s
}

func (s *snapshot) chunkIDs(c chunk) []int64 {
	ids := make([]int64, 0, c.end-c.start)
	for _, t := range s.turns[c.start:c.end] {
		ids = append(ids, t.ID)
	}
	return ids
}

func (s *snapshot) tailTokens() int {
	n := 0
	for _, t := range s.turns[s.tailStart:] {
		n += t.Tokens
	}
	return n
}

// valid reports whether the node at (level, seq) exists and covers
// exactly ids.
func (s *snapshot) valid(level, seq int, ids []int64) (conversation.NodeRef, bool) {
	n, ok := s.nodes[level][seq]
	return n, ok && slices.Equal(n.ChildIDs, ids)
}

// LevelProgress counts the summaries of one level.
type LevelProgress struct {
	Level int `json:"level"`
	// Planned is the number of nodes this level needs; Done how many are
	// stored.
	Planned int `json:"planned"`
	Done    int `json:"done"`
}

// Plan is where a compression stands.
type Plan struct {
	// Pending are the units that can run now, lowest level first.
	Pending []Unit `json:"-"`
	// Levels are the levels planned so far (level 1 = chunk summaries).
	Levels []LevelProgress `json:"levels"`
	// Done: the conversation's summaries fit TargetTokens, or no merge
	// can shrink them further (Fits says which).
	Done bool `json:"done"`
	Fits bool `json:"fits"`
	// CoverTokens is the size of the summary cover at the deepest
	// finished level plus the raw tail.
	CoverTokens  int `json:"cover_tokens"`
	TargetTokens int `json:"target_tokens"`
	// Chunks is the number of closed chunks.
	Chunks int `json:"chunks"`
}

// UnitsDone and UnitsPlanned total the levels.
func (p Plan) UnitsDone() int {
	n := 0
	for _, l := range p.Levels {
		n += l.Done
	}
	return n
}

// UnitsPlanned totals the planned nodes of every level.
func (p Plan) UnitsPlanned() int {
	n := 0
	for _, l := range p.Levels {
		n += l.Planned
	}
	return n
}

// plan decides the next units: every closed chunk gets a level-1
// summary; then, while the cover (the deepest level, what lower levels
// leave unmerged, and the raw tail) exceeds target, the deepest level is
// merged fanIn nodes at a time. Complete groups only, so merges stay
// valid as the conversation grows; a level of 2..fanIn-1 nodes is merged
// as one partial group (replaced once its group fills up). Levels are
// planned one after another because whether a level is needed depends on
// the sizes of the one below.
func (s *snapshot) plan(target, fanIn int) Plan {
	p := Plan{TargetTokens: target, Chunks: len(s.chunks)}
	lp := LevelProgress{Level: 1, Planned: len(s.chunks)}
	layer := make([]conversation.NodeRef, 0, len(s.chunks))
	for i, c := range s.chunks {
		ids := s.chunkIDs(c)
		n, ok := s.valid(1, i, ids)
		if !ok {
			p.Pending = append(p.Pending, Unit{Level: 1, Seq: i, ChildIDs: ids})
			continue
		}
		lp.Done++
		layer = append(layer, n)
	}
	p.Levels = append(p.Levels, lp)
	if len(p.Pending) > 0 {
		return p
	}
	// unmerged holds the tokens lower levels leave out of the groups.
	unmerged := s.tailTokens()
	for level := 1; ; level++ {
		cover := unmerged + sumTokens(layer)
		p.CoverTokens = cover
		if cover <= target {
			p.Done, p.Fits = true, true
			return p
		}
		groups, size := len(layer)/fanIn, fanIn
		if groups == 0 && len(layer) >= 2 {
			groups, size = 1, len(layer)
		}
		if groups == 0 {
			p.Done = true
			return p
		}
		lp := LevelProgress{Level: level + 1, Planned: groups}
		next := make([]conversation.NodeRef, 0, groups)
		for j := range groups {
			ids := make([]int64, 0, size)
			for _, n := range layer[j*size : (j+1)*size] {
				ids = append(ids, n.ID)
			}
			n, ok := s.valid(level+1, j, ids)
			if !ok {
				p.Pending = append(p.Pending, Unit{Level: level + 1, Seq: j, ChildIDs: ids})
				continue
			}
			lp.Done++
			next = append(next, n)
		}
		p.Levels = append(p.Levels, lp)
		if len(p.Pending) > 0 {
			return p
		}
		unmerged += sumTokens(layer[groups*size:])
		layer = next
	}
}

func sumTokens(ns []conversation.NodeRef) int {
	n := 0
	for _, x := range ns {
		n += x.Tokens
	}
	return n
}
