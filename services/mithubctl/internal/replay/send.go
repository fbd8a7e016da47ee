package replay

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
)

// tickInterval is the pacing granularity.
const tickInterval = 100 * time.Millisecond

// sender posts utterances in batches and keeps the totals.
type sender struct {
	client    API
	meetingID string
	utts      []apiclient.Utterance
	batch     int
	progress  *progress

	sent       int
	inserted   int
	duplicates int
}

// unthrottled sends full batches back to back.
func (s *sender) unthrottled(ctx context.Context) error {
	for s.sent < len(s.utts) {
		if err := s.send(ctx, s.batch); err != nil {
			return err
		}
	}
	return nil
}

// paced sends at most rate utterances per second: every tick adds a tenth
// of the rate to a budget capped at one tick's worth (rounded up), and
// batches shrink to what the budget allows.
func (s *sender) paced(ctx context.Context, rate float64, clk clock) error {
	ticks, stop := clk.newTicker(tickInterval)
	defer stop()
	b := newBudget(rate, tickInterval)
	for s.sent < len(s.utts) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticks:
		}
		b.tick()
		for s.sent < len(s.utts) {
			n := b.take(s.batch)
			if n == 0 {
				break
			}
			if err := s.send(ctx, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// send posts the next batch of at most n utterances.
func (s *sender) send(ctx context.Context, n int) error {
	end := min(s.sent+n, len(s.utts))
	res, err := s.client.PostUtterances(ctx, s.meetingID, s.utts[s.sent:end])
	if err != nil {
		return fmt.Errorf("send utterances %d to %d of %d: %w", s.sent+1, end, len(s.utts), err)
	}
	s.inserted += res.Inserted
	s.duplicates += res.Duplicates
	s.sent = end
	s.progress.update(s.sent)
	return nil
}

// budget is a token bucket counted in utterances.
type budget struct {
	perTick  float64
	capacity float64
	tokens   float64
}

// newBudget returns an empty budget refilled at rate per second in steps
// of interval.
func newBudget(rate float64, interval time.Duration) *budget {
	perTick := rate * interval.Seconds()
	return &budget{perTick: perTick, capacity: math.Max(1, math.Ceil(perTick))}
}

// tick adds one interval's worth of utterances.
func (b *budget) tick() {
	b.tokens = math.Min(b.tokens+b.perTick, b.capacity)
}

// take removes and returns up to limit whole utterances from the budget.
func (b *budget) take(limit int) int {
	n := min(int(b.tokens), limit)
	b.tokens -= float64(n)
	return n
}
