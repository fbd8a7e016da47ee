package ask

import (
	"context"
	"sync"
	"time"
)

// Background turn embedding: an ask never waits for turns to be embedded.
// A topic (or a meeting's pending turns) whose embeddings are not cached
// yet is searched without them, and a job embeds them for the asks after.
const (
	// maxEmbedJobs bounds the jobs queued or running; past it a job is
	// not started (the next ask that needs it asks again).
	maxEmbedJobs = 1024
	// embedWorkers is how many jobs embed at once.
	embedWorkers = 1
	// embedJobTimeout bounds one job.
	embedJobTimeout = 2 * time.Minute
)

// embedJobs runs background embeddings, at most one per key at a time.
type embedJobs struct {
	mu      sync.Mutex
	running map[any]struct{}
	sem     chan struct{}
	wg      sync.WaitGroup
}

func newEmbedJobs() *embedJobs {
	return &embedJobs{running: map[any]struct{}{}, sem: make(chan struct{}, embedWorkers)}
}

// start runs f in the background unless a job for key is queued or
// running, or too many are. It reports whether it started one.
func (j *embedJobs) start(key any, f func(ctx context.Context)) bool {
	j.mu.Lock()
	if _, ok := j.running[key]; ok || len(j.running) >= maxEmbedJobs {
		j.mu.Unlock()
		return false
	}
	j.running[key] = struct{}{}
	j.wg.Add(1)
	j.mu.Unlock()
	go func() {
		defer j.wg.Done()
		defer func() {
			j.mu.Lock()
			delete(j.running, key)
			j.mu.Unlock()
		}()
		j.sem <- struct{}{}
		defer func() { <-j.sem }()
		ctx, cancel := context.WithTimeout(context.Background(), embedJobTimeout)
		defer cancel()
		f(ctx)
	}()
	return true
}

// wait waits for the jobs started so far.
func (j *embedJobs) wait() { j.wg.Wait() }
