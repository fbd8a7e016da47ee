package meetingctx

import "context"

// Topic is an L1 topic: a span of turns with a title, a one-sentence
// summary and keywords.
type Topic struct {
	ID       string   `json:"id"`
	Seq      int      `json:"seq"`
	Title    string   `json:"title"`
	Summary  string   `json:"summary"`
	Keywords []string `json:"keywords"`
	StartSeq int      `json:"start_seq"`
	EndSeq   int      `json:"end_seq"`
	StartMS  int64    `json:"start_ms"`
	EndMS    int64    `json:"end_ms"`
	// Embedding of the summary; nil until embedded (never a zero vector).
	Embedding  []float32 `json:"-"`
	MergedFrom []string  `json:"merged_from,omitempty"`
	Version    int       `json:"version"`
}

// Segment is one topic a Segmenter found in a chunk.
type Segment struct {
	StartSeq int
	EndSeq   int
	Title    string
	// Summary is one sentence of at most 120 characters.
	Summary  string
	Keywords []string
}

// SegmentInput is a chunk of turns to split into topics.
type SegmentInput struct {
	// Turns are contiguous in seq, ascending.
	Turns []Turn
	// Previous is the meeting's last topic before the chunk, nil for the
	// first chunk; PreviousTurns are its last turns (up to 10), so cohesion
	// can be judged across the chunk border.
	Previous      *Topic
	PreviousTurns []Turn
	// Earlier are the meeting's topics so far (titles and summaries), for
	// segmenters that prompt with them.
	Earlier []Topic
}

// SegmentOutput is a Segmenter's answer.
type SegmentOutput struct {
	// ContinueTo, when >= 0, is the last seq of the chunk's leading turns
	// that continue Previous; -1 when the chunk opens new topics at once.
	ContinueTo int
	// Segments cover the remaining turns in order, without gaps. The
	// engine repairs gaps and overlaps with fallback segments.
	Segments []Segment
}

// Segmenter splits a chunk of turns into topics.
type Segmenter interface {
	Segment(ctx context.Context, in SegmentInput) (SegmentOutput, error)
}

// MeetingSegmenter is a Segmenter that can also segment a whole meeting
// in one pass. After a meeting ends, the engine replaces its live topics
// with this pass over every stored turn (see Manager.Finish), so an ended
// meeting's topics are what an offline pass over the same turns gives.
type MeetingSegmenter interface {
	Segmenter
	// SegmentMeeting segments turns (contiguous in seq, ascending, the
	// whole meeting) into segments that cover every turn in order.
	SegmentMeeting(ctx context.Context, turns []Turn) ([]Segment, error)
}

// TurnSource reads a meeting's stored turns, for the end-of-meeting pass.
type TurnSource interface {
	// LoadTurns returns the turns with seq 0..upTo, in order.
	LoadTurns(ctx context.Context, tenantID, meetingID string, upTo int) ([]Turn, error)
}

// Summary is a title, a one-sentence summary (at most 120 characters) and
// keywords.
type Summary struct {
	Title    string
	Summary  string
	Keywords []string
}

// Summarizer writes the summary of a topic from its turns; merging two
// topics passes both topics' turns with the topics as hints.
type Summarizer interface {
	Summarize(ctx context.Context, turns []Turn, hints []Topic) (Summary, error)
}

// Embedder turns texts into vectors of a fixed dimension. Implementations
// return an error rather than a zero vector.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dimension() int
}
