package meetingctx

import "time"

// Config holds the context engine's limits (docs/architecture.md §5). Zero values take
// the defaults.
type Config struct {
	// L0MaxTurns caps the L0 window (default 25).
	L0MaxTurns int
	// L0MaxTokens caps the L0 window's tokens (default 3000). The newest
	// turn is always kept, even when it alone is larger.
	L0MaxTokens int
	// ChunkTurns: an L1 chunk is cut every this many final turns (default 25).
	ChunkTurns int
	// BufferMaxTurns and BufferMaxTokens cap the topic buffer, the turns not
	// yet in L1 (default 100 / 10000); past either, a chunk is cut at once.
	BufferMaxTurns  int
	BufferMaxTokens int
	// MaxTopics: above it, similar neighbouring topics are merged
	// (default 30).
	MaxTopics int
	// MergeThreshold is the cosine similarity that allows a merge
	// (default 0.80).
	MergeThreshold float64
	// SearchTopK and SearchThreshold shape topic search (default 5 / 0.30
	// cosine).
	SearchTopK      int
	SearchThreshold float64
	// L1Wait bounds how long a caller that wants fresh topics waits for
	// pending L1 work (default 1.5s).
	L1Wait time.Duration
}

// Defaults of Config.
const (
	DefaultL0MaxTurns      = 25
	DefaultL0MaxTokens     = 3000
	DefaultChunkTurns      = 25
	DefaultBufferMaxTurns  = 100
	DefaultBufferMaxTokens = 10000
	DefaultMaxTopics       = 30
	DefaultMergeThreshold  = 0.80
	DefaultSearchTopK      = 5
	DefaultSearchThreshold = 0.30
	DefaultL1Wait          = 1500 * time.Millisecond
)

// L0MaxTurnsOrDefault is the effective L0 turn cap.
func (c Config) L0MaxTurnsOrDefault() int { return c.WithDefaults().L0MaxTurns }

// WithDefaults fills zero fields with the defaults.
func (c Config) WithDefaults() Config {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.L0MaxTurns, DefaultL0MaxTurns)
	def(&c.L0MaxTokens, DefaultL0MaxTokens)
	def(&c.ChunkTurns, DefaultChunkTurns)
	def(&c.BufferMaxTurns, DefaultBufferMaxTurns)
	def(&c.BufferMaxTokens, DefaultBufferMaxTokens)
	def(&c.MaxTopics, DefaultMaxTopics)
	def(&c.SearchTopK, DefaultSearchTopK)
	if c.MergeThreshold <= 0 {
		c.MergeThreshold = DefaultMergeThreshold
	}
	if c.SearchThreshold <= 0 {
		c.SearchThreshold = DefaultSearchThreshold
	}
	if c.L1Wait <= 0 {
		c.L1Wait = DefaultL1Wait
	}
	return c
}
