package ask

import (
	"hash/maphash"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/mithub/mithub/pkg/tokens"
)

// Texts that recur from ask to ask — the system prompts, a meeting's facts
// and speakers, its topic lines — are counted once: memoCounter remembers
// the counts of texts of at least memoMinLen bytes, up to memoEntries of
// them. It keeps a 128-bit hash of each text, not the text, so its memory
// does not grow with the texts' length (about 100 bytes an entry): a
// growing meeting's facts and topic list are new texts at every ask.
const (
	memoMinLen  = 32
	memoEntries = 8192
)

// memoKey is a text's hash under two independent seeds; two texts of
// one process share a key with probability about 2⁻¹²⁸.
type memoKey struct{ a, b uint64 }

type memoCounter struct {
	tokens.Counter
	seedA, seedB maphash.Seed
	counts       *lru.Cache[memoKey, int]
}

func newMemoCounter(c tokens.Counter) memoCounter {
	counts, _ := lru.New[memoKey, int](memoEntries)
	return memoCounter{Counter: c, seedA: maphash.MakeSeed(), seedB: maphash.MakeSeed(), counts: counts}
}

func (m memoCounter) key(text string) memoKey {
	return memoKey{maphash.String(m.seedA, text), maphash.String(m.seedB, text)}
}

func (m memoCounter) Count(text string) int {
	if len(text) < memoMinLen {
		return m.Counter.Count(text)
	}
	k := m.key(text)
	if n, ok := m.counts.Get(k); ok {
		return n
	}
	n := m.Counter.Count(text)
	m.counts.Add(k, n)
	return n
}
