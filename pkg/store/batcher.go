package store

import (
	"context"
	"errors"
	"sync"
)

// errBatcherClosed: the batcher has stopped taking requests.
var errBatcherClosed = errors.New("batcher closed")

// batcher hands requests to do in batches: requests that arrive while up
// to inFlight batches are under way go together in the next one, at most
// max of them. do answers every request of its batch and returns those
// that must wait for a later batch. After close, the requests accepted
// before it are still done.
type batcher[R any] struct {
	reqs chan R
	max  int
	do   func([]R) []R
	// mu orders submit's sends before close: closed is set, and closing
	// closed, only when no send is under way, so the last drain finds
	// every accepted request.
	mu      sync.RWMutex
	closed  bool
	closing chan struct{}
	done    chan struct{}
}

func newBatcher[R any](inFlight, max int, do func([]R) []R) *batcher[R] {
	b := &batcher[R]{reqs: make(chan R, max), max: max, do: do, closing: make(chan struct{}), done: make(chan struct{})}
	var wg sync.WaitGroup
	for range inFlight {
		wg.Go(b.run)
	}
	go func() {
		wg.Wait()
		close(b.done)
	}()
	return b
}

// submit queues r for a batch: errBatcherClosed after close, ctx's error
// if it ends before r is queued.
func (b *batcher[R]) submit(ctx context.Context, r R) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return errBatcherClosed
	}
	select {
	case b.reqs <- r:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close stops the batcher once the requests it accepted are done.
func (b *batcher[R]) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.closing)
	}
	b.mu.Unlock()
	<-b.done
}

func (b *batcher[R]) run() {
	var next []R
	for {
		if len(next) == 0 {
			select {
			case r := <-b.reqs:
				next = append(next, r)
			case <-b.closing:
				// Requests that got in before close are still done.
				for {
					select {
					case r := <-b.reqs:
						next = append(next, r)
					default:
						for len(next) > 0 {
							next = b.do(next)
						}
						return
					}
				}
			}
		}
	fill:
		for len(next) < b.max {
			select {
			case r := <-b.reqs:
				next = append(next, r)
			default:
				break fill
			}
		}
		next = b.do(next)
	}
}
