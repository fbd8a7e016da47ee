package segment

// SegmenterConfig tunes the Segmenter. A zero field takes its default.
//
// Every gap between two turns gets the probability, under a boundary
// model (see BoundaryModel), that a new topic starts at the turn after it.
// The decoder keeps the most probable gaps above Threshold that leave every
// topic at least MinTurns turns long.
type SegmenterConfig struct {
	// Model is the boundary model; nil means the shipped one
	// (model/boundary.json, trained on the QMSum train split by
	// `make train`).
	Model *BoundaryModel
	// Threshold overrides the model's decoding threshold, in (0, 1).
	Threshold float64
	// MinTurns overrides the model's minimum topic length, in turns.
	MinTurns int
	// TopicTurns overrides the model's prior mean topic length, in turns,
	// which bounds the topic count of SegmentMeeting.
	TopicTurns int
	// TailTurns is how many of a chunk's last turns wait for the next
	// chunk before a topic may start there: the features of a gap read the
	// turns after it. The next chunk sees them as previous turns and can
	// open the topic at its first turn (default 3).
	TailTurns int
}

// DefaultTailTurns is SegmenterConfig.TailTurns's default.
const DefaultTailTurns = 3

func (c SegmenterConfig) withDefaults() (SegmenterConfig, error) {
	if c.Model == nil {
		m, err := shippedModel()
		if err != nil {
			return c, err
		}
		c.Model = m
	}
	if c.Threshold <= 0 || c.Threshold >= 1 {
		c.Threshold = c.Model.Threshold
	}
	if c.MinTurns <= 0 {
		c.MinTurns = c.Model.MinTurns
	}
	if c.TopicTurns <= 0 {
		c.TopicTurns = c.Model.TopicTurns
	}
	if c.TailTurns <= 0 {
		c.TailTurns = DefaultTailTurns
	}
	return c, nil
}
