package jobs

import (
	"context"

	"golang.org/x/sync/semaphore"
)

// DefaultTurnsInFlight is the default of MITHUB_PR_TURNS_IN_FLIGHT.
const DefaultTurnsInFlight = 400_000

// TurnBudget bounds the transcript turns of the PR jobs running at once
// in one process: a job takes one unit per turn of its meeting (at least
// one, at most the whole budget) and waits, first come first served, until
// they are free. Several huge meetings are so built one after another,
// while many small ones run side by side.
type TurnBudget struct {
	sem  *semaphore.Weighted
	size int64
}

// NewTurnBudget returns a budget of size turns (<= 0: DefaultTurnsInFlight).
func NewTurnBudget(size int) *TurnBudget {
	if size <= 0 {
		size = DefaultTurnsInFlight
	}
	return &TurnBudget{sem: semaphore.NewWeighted(int64(size)), size: int64(size)}
}

// Size is the budget in turns.
func (b *TurnBudget) Size() int64 { return b.size }

// Acquire takes the units of a job of turns turns, waiting until they are
// free or ctx is done; waiting, when not nil, is called first when the
// job has to wait. The returned func gives the units back.
func (b *TurnBudget) Acquire(ctx context.Context, turns int, waiting func(weight int64)) (release func(), err error) {
	w := min(max(int64(turns), 1), b.size)
	if !b.sem.TryAcquire(w) {
		if waiting != nil {
			waiting(w)
		}
		if err := b.sem.Acquire(ctx, w); err != nil {
			return nil, err
		}
	}
	return func() { b.sem.Release(w) }, nil
}
