package convmemory

import (
	"fmt"

	"github.com/mithub/mithub/pkg/envconf"
	"github.com/mithub/mithub/pkg/tokens"
)

// Config tunes memory. Zero fields take the defaults.
type Config struct {
	// ChunkTokens is MITHUB_MEMORY_CHUNK_TOKENS, the chunk size (default 500).
	ChunkTokens int
	// FanIn is MITHUB_MEMORY_FAN_IN, nodes per merge (default 5).
	FanIn int
	// MaxInFlight is MITHUB_MEMORY_MAX_IN_FLIGHT, the summaries of one
	// compression queued or running at once (default 20).
	MaxInFlight int
	// ContextWindow is the model window in tokens: MITHUB_LLM_CONTEXT_WINDOW,
	// else the window of MITHUB_LLM_MODEL (default: tokens.ContextWindow).
	ContextWindow int
	// CompressAt is MITHUB_MEMORY_COMPRESS_AT, the share of the window
	// above which ShouldCompress says yes (default 0.70).
	CompressAt float64
	// CompressTo is MITHUB_MEMORY_COMPRESS_TO, the share of the window a
	// compressed context fits in (default 0.10).
	CompressTo float64
	// SummaryTokens and MergeTokens cap the model's output for a chunk
	// summary and a merge: MITHUB_MEMORY_SUMMARY_TOKENS (default 200) and
	// MITHUB_MEMORY_MERGE_TOKENS (default 300).
	SummaryTokens int
	MergeTokens   int
}

// Defaults of Config.
const (
	DefaultChunkTokens   = 500
	DefaultFanIn         = 5
	DefaultMaxInFlight   = 20
	DefaultCompressAt    = 0.70
	DefaultCompressTo    = 0.10
	DefaultSummaryTokens = 200
	DefaultMergeTokens   = 300
)

// WithDefaults fills zero fields.
func (c Config) WithDefaults() Config {
	if c.ChunkTokens <= 0 {
		c.ChunkTokens = DefaultChunkTokens
	}
	if c.FanIn <= 1 {
		c.FanIn = DefaultFanIn
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	if c.ContextWindow <= 0 {
		c.ContextWindow = tokens.DefaultContextWindow
	}
	if c.CompressAt <= 0 {
		c.CompressAt = DefaultCompressAt
	}
	if c.CompressTo <= 0 {
		c.CompressTo = DefaultCompressTo
	}
	if c.SummaryTokens <= 0 {
		c.SummaryTokens = DefaultSummaryTokens
	}
	if c.MergeTokens <= 0 {
		c.MergeTokens = DefaultMergeTokens
	}
	return c
}

// Validate checks the ranges.
func (c Config) Validate() error {
	switch {
	case c.CompressTo >= c.CompressAt:
		return fmt.Errorf("%w: MITHUB_MEMORY_COMPRESS_TO (%.2f) must be below MITHUB_MEMORY_COMPRESS_AT (%.2f)", ErrInvalid, c.CompressTo, c.CompressAt)
	case c.CompressAt > 1:
		return fmt.Errorf("%w: MITHUB_MEMORY_COMPRESS_AT must be at most 1", ErrInvalid)
	}
	return nil
}

// LoadConfig reads the MITHUB_MEMORY_* variables (and the model window
// from MITHUB_LLM_CONTEXT_WINDOW / MITHUB_LLM_MODEL) from r; problems are
// reported through r.Err.
func LoadConfig(r *envconf.Reader) Config {
	model := r.String("MITHUB_LLM_MODEL", "")
	c := Config{
		ChunkTokens:   r.Int("MITHUB_MEMORY_CHUNK_TOKENS", DefaultChunkTokens, 50, 100_000),
		FanIn:         r.Int("MITHUB_MEMORY_FAN_IN", DefaultFanIn, 2, 100),
		MaxInFlight:   r.Int("MITHUB_MEMORY_MAX_IN_FLIGHT", DefaultMaxInFlight, 1, 10_000),
		ContextWindow: tokens.ContextWindow(model, r.Int("MITHUB_LLM_CONTEXT_WINDOW", 0, 0, 100_000_000)),
		CompressAt:    r.Float("MITHUB_MEMORY_COMPRESS_AT", DefaultCompressAt, 0.01, 1),
		CompressTo:    r.Float("MITHUB_MEMORY_COMPRESS_TO", DefaultCompressTo, 0.001, 1),
		SummaryTokens: r.Int("MITHUB_MEMORY_SUMMARY_TOKENS", DefaultSummaryTokens, 16, 100_000),
		MergeTokens:   r.Int("MITHUB_MEMORY_MERGE_TOKENS", DefaultMergeTokens, 16, 100_000),
	}
	if c.CompressTo >= c.CompressAt {
		r.Fail("MITHUB_MEMORY_COMPRESS_TO", "%.2f must be below MITHUB_MEMORY_COMPRESS_AT (%.2f)", c.CompressTo, c.CompressAt)
	}
	return c
}
