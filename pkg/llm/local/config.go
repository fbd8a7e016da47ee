package local

import "time"

// SegmenterConfig tunes the Segmenter. A zero field takes its default; the
// defaults were chosen by a parameter sweep on the QMSum training meetings
// (mean Pk with 25-turn chunks, see TestTuneSegmenter).
//
// Every gap between two content turns gets a boundary score
//
//	depth + CueWeight·cue + LengthWeight·min(1, words/LongTurnWords)
//
// where depth is the TextTiling depth of the lexical similarity between
// the blocks before and after the gap, cue the strength of topic-opening
// phrases at the start of the turn after it, and words that turn's content
// words. A gap is a boundary when its score exceeds both MinScore and
// mean − CutoffC·stdev of the scores in the window, and the topics on both
// sides last at least MinTopic.
type SegmenterConfig struct {
	// BlockWords is how many content words each block compared across a
	// gap holds, grown turn by turn; every content turn in a block weighs
	// the same (default 400).
	BlockWords int
	// Smoothing is the half-width of the moving average over the gap
	// similarities; negative means none (default 2).
	Smoothing int
	// CutoffC sets the relative cutoff mean − CutoffC·stdev over the
	// window's boundary scores (default -2: two standard deviations above
	// the mean).
	CutoffC float64
	// MinScore is the absolute cutoff of the boundary score (default 1.7).
	MinScore float64
	// CueWeight weighs cue phrases such as "let's move on", "next item",
	// "questions from", "다음 안건", "넘어가"; negative disables them
	// (default 2).
	CueWeight float64
	// LengthWeight weighs the length of the turn after a gap: topics tend
	// to open with a long turn, such as a presentation or a chair's
	// question; negative disables it (default 2).
	LengthWeight float64
	// LongTurnWords is the content-word count at which the length term is
	// full (default 120).
	LongTurnWords int
	// MinTopic is the shortest topic a boundary may close or open,
	// measured on the turns' times, including the previous topic's start;
	// turns without times count 400 ms per word (default 8m).
	MinTopic time.Duration
	// TailWords is how many content words a gap needs after it inside the
	// chunk to be judged. A gap in the chunk's last turns is left to the
	// next chunk, which sees those turns as previous turns and can open
	// the topic at its first turn (default 60).
	TailWords int
}

// Defaults of SegmenterConfig.
const (
	DefaultBlockWords    = 400
	DefaultSmoothing     = 2
	DefaultCutoffC       = -2.0
	DefaultMinScore      = 1.7
	DefaultCueWeight     = 2.0
	DefaultLengthWeight  = 2.0
	DefaultLongTurnWords = 120
	DefaultMinTopic      = 8 * time.Minute
	DefaultTailWords     = 60
)

func (c SegmenterConfig) withDefaults() SegmenterConfig {
	if c.BlockWords <= 0 {
		c.BlockWords = DefaultBlockWords
	}
	switch {
	case c.Smoothing < 0:
		c.Smoothing = 0
	case c.Smoothing == 0:
		c.Smoothing = DefaultSmoothing
	}
	if c.CutoffC == 0 {
		c.CutoffC = DefaultCutoffC
	}
	if c.MinScore <= 0 {
		c.MinScore = DefaultMinScore
	}
	switch {
	case c.CueWeight < 0:
		c.CueWeight = 0
	case c.CueWeight == 0:
		c.CueWeight = DefaultCueWeight
	}
	switch {
	case c.LengthWeight < 0:
		c.LengthWeight = 0
	case c.LengthWeight == 0:
		c.LengthWeight = DefaultLengthWeight
	}
	if c.LongTurnWords <= 0 {
		c.LongTurnWords = DefaultLongTurnWords
	}
	if c.MinTopic <= 0 {
		c.MinTopic = DefaultMinTopic
	}
	if c.TailWords <= 0 {
		c.TailWords = DefaultTailWords
	}
	return c
}
