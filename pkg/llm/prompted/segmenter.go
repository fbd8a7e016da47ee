package prompted

import (
	"context"
	"fmt"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/meetingctx"
)

// Segmenter splits chunks of a meeting into topics with a chat model. It
// is safe for concurrent use if its Chatter is.
type Segmenter struct {
	chat llm.Chatter
	cfg  Config
}

var _ meetingctx.Segmenter = (*Segmenter)(nil)

// NewSegmenter returns a Segmenter that asks chat.
func NewSegmenter(chat llm.Chatter, cfg Config) *Segmenter {
	return &Segmenter{chat: chat, cfg: cfg.withDefaults()}
}

// Segment asks the model for the chunk's topics and repairs the answer so
// that every turn is covered exactly once: by the previous topic up to
// ContinueTo, then by the segments in order. When the model fails or its
// answer is unusable, Segment returns one fallback segment for the whole
// chunk together with an error (wrapping the Chatter's error or
// ErrUnusable); the caller stores the fallback so no turn is uncovered.
func (s *Segmenter) Segment(ctx context.Context, in meetingctx.SegmentInput) (meetingctx.SegmentOutput, error) {
	if len(in.Turns) == 0 {
		return meetingctx.SegmentOutput{ContinueTo: -1}, nil
	}
	first, last := in.Turns[0].Seq, in.Turns[len(in.Turns)-1].Seq
	system := initialSystem(first, last)
	if in.Previous != nil {
		system = recursiveSystem(first, last)
	}
	resp, err := s.chat.Chat(ctx, llm.ChatRequest{
		Model: s.cfg.Model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: system},
			{Role: llm.RoleUser, Content: s.segmentUser(in)},
		},
		MaxTokens:   s.cfg.MaxTokens,
		Temperature: s.cfg.Temperature,
		JSON:        true,
	})
	if err != nil {
		return fallbackOutput(in.Turns), fmt.Errorf("segment seq %d-%d: %w", first, last, err)
	}
	reply, err := parseSegmentReply(resp.Content)
	if err != nil {
		return fallbackOutput(in.Turns), fmt.Errorf("segment seq %d-%d: %w: %w", first, last, ErrUnusable, err)
	}
	out, ok := repairSegments(in, reply)
	if !ok {
		return fallbackOutput(in.Turns), fmt.Errorf("segment seq %d-%d: %w: no topic within the chunk", first, last, ErrUnusable)
	}
	return out, nil
}
