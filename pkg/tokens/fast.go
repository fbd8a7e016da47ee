package tokens

import (
	"hash/maphash"
	"sync"
	"unicode/utf8"
)

// fastCounter counts tokens with a hand-written pre-tokenizer, the BPE
// ranks, and a bounded cache of pieces that need merging (Korean words, rare
// English ones). Counts equal tiktoken's.
type fastCounter struct {
	name  string
	ranks map[string]int
	// next returns the end of the piece that starts at s[i]: nextCL100K or
	// nextO200K.
	next  func(s string, i int) int
	cache pieceCache
}

func (c *fastCounter) Encoding() string { return c.name }

func (c *fastCounter) Count(text string) int {
	if !utf8.ValidString(text) {
		// The reference decodes each invalid byte to U+FFFD.
		text = string([]rune(text))
	}
	n := 0
	for i := 0; i < len(text); {
		j := c.next(text, i)
		n += c.pieceCount(text[i:j])
		i = j
	}
	return n
}

func (c *fastCounter) pieceCount(piece string) int {
	if _, ok := c.ranks[piece]; ok {
		return 1
	}
	if k, ok := c.cache.get(piece); ok {
		return k
	}
	k := bpeCount(c.ranks, piece)
	c.cache.put(piece, k)
	return k
}

const (
	cacheShards   = 32
	cacheShardMax = 8192
)

// pieceCache maps pieces to token counts. Each shard is cleared when full,
// which bounds memory without bookkeeping on the hot path.
type pieceCache struct {
	seed   maphash.Seed
	once   sync.Once
	shards [cacheShards]struct {
		mu sync.RWMutex
		m  map[string]int
	}
}

func (p *pieceCache) shard(piece string) int {
	p.once.Do(func() { p.seed = maphash.MakeSeed() })
	return int(maphash.String(p.seed, piece) % cacheShards)
}

func (p *pieceCache) get(piece string) (int, bool) {
	s := &p.shards[p.shard(piece)]
	s.mu.RLock()
	k, ok := s.m[piece]
	s.mu.RUnlock()
	return k, ok
}

func (p *pieceCache) put(piece string, k int) {
	s := &p.shards[p.shard(piece)]
	s.mu.Lock()
	if s.m == nil || len(s.m) >= cacheShardMax {
		s.m = make(map[string]int, 256)
	}
	// Clone: piece may point into a large request body.
	s.m[string(append([]byte(nil), piece...))] = k
	s.mu.Unlock()
}
