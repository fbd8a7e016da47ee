package convmemory

import (
	"context"
	"sync"
)

// Runner runs a compression job's units.
type Runner interface {
	// Start runs job: Inline to the end, Queue by enqueueing its first
	// units (pr-worker does the rest).
	Start(ctx context.Context, job Job) error
}

// Inline runs units in the calling process on a pool of at most n
// goroutines (MaxInFlight).
type Inline struct {
	e *Engine
	n int
}

// NewInline returns an Inline runner with the engine's MaxInFlight.
func NewInline(e *Engine) *Inline { return &Inline{e: e, n: e.cfg.MaxInFlight} }

// Start processes the job until its plan is done. Units of one level run
// concurrently; after a unit fails no new unit starts, the ones in flight
// finish, and the run returns the error (stored nodes stay, so running it
// again resumes).
func (r *Inline) Start(ctx context.Context, job Job) error {
	for {
		p, err := r.e.Plan(ctx, job)
		if err != nil {
			return err
		}
		if p.Done || len(p.Pending) == 0 {
			return nil
		}
		if err := r.runAll(ctx, job, p.Pending); err != nil {
			return err
		}
	}
}

func (r *Inline) runAll(ctx context.Context, job Job, units []Unit) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return first != nil
	}
	sem := make(chan struct{}, r.n)
	for _, u := range units {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil || failed() {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := r.e.Process(ctx, job, u); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
