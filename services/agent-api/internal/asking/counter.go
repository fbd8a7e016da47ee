package asking

import (
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/mithub/mithub/pkg/tokens"
)

// Texts that recur from ask to ask — the system prompts, a meeting's facts
// and speakers, its topic lines — are counted once: memoCounter remembers
// the counts of texts of at least memoMinLen bytes, up to memoEntries of
// them (a few MB at most).
const (
	memoMinLen  = 32
	memoEntries = 8192
)

type memoCounter struct {
	tokens.Counter
	counts *lru.Cache[string, int]
}

func newMemoCounter(c tokens.Counter) memoCounter {
	counts, _ := lru.New[string, int](memoEntries)
	return memoCounter{Counter: c, counts: counts}
}

func (m memoCounter) Count(text string) int {
	if len(text) < memoMinLen {
		return m.Counter.Count(text)
	}
	if n, ok := m.counts.Get(text); ok {
		return n
	}
	n := m.Counter.Count(text)
	m.counts.Add(text, n)
	return n
}
