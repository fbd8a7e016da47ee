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
	// MinWords and TopicWords override the model's minimum and prior mean
	// topic length in words spoken, with which SegmentMeeting decodes a
	// whole meeting.
	MinWords   int
	TopicWords int
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
	if c.MinWords <= 0 {
		c.MinWords = c.Model.MinWords
	}
	if c.TopicWords <= 0 {
		c.TopicWords = c.Model.TopicWords
	}
	if c.TailTurns <= 0 {
		c.TailTurns = DefaultTailTurns
	}
	return c, nil
}
