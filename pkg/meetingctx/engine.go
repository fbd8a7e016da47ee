package meetingctx

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// TopicStore persists a meeting's topics. SaveTopics makes the stored
// list equal to topics; l1Cursor is the highest seq they cover, so a store
// can refuse to go backwards.
type TopicStore interface {
	SaveTopics(ctx context.Context, tenantID, meetingID string, l1Cursor int, topics []Topic) error
}

// EngineDeps are the engine's collaborators.
type EngineDeps struct {
	Segmenter  Segmenter
	Summarizer Summarizer
	Embedder   Embedder
	Store      TopicStore
	// Turns, with a Segmenter that is a MeetingSegmenter, enables the
	// end-of-meeting pass; nil leaves an ended meeting's live topics as
	// they are.
	Turns TurnSource
	Log   *slog.Logger
	// MaxConcurrentLLM bounds segmenter, summarizer and embedder calls in
	// flight across all meetings (default 8).
	MaxConcurrentLLM int
	// CallTimeout bounds one such call (default 2m).
	CallTimeout time.Duration
	// After starts the timer that bounds Manager.WaitL1: c receives once
	// d has passed, stop releases the timer (default: a time.Timer).
	// Tests replace it to check the bound without waiting for it.
	After func(d time.Duration) (c <-chan time.Time, stop func() bool)
	// Owner and Shared, both set, share meetings with other processes
	// (replicas): a context runs L1 work only while it owns the meeting
	// and otherwise serves the topics stored by the owner (see
	// Ownership). Nil: this engine owns every meeting it holds.
	Owner  Ownership
	Shared SharedSource
	// OwnerRetry is how often a context with L1 work due tries to take
	// its meeting over from another owner (default DefaultOwnerRetry).
	OwnerRetry time.Duration
}

// Engine runs L1 work for every meeting: one runner goroutine per meeting
// with work, chunks processed in order, provider calls bounded globally.
type Engine struct {
	deps   EngineDeps
	sem    chan struct{}
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	closed  bool
	runners sync.WaitGroup
}

// NewEngine returns an engine; Close stops it.
func NewEngine(d EngineDeps) *Engine {
	if d.MaxConcurrentLLM <= 0 {
		d.MaxConcurrentLLM = 8
	}
	if d.CallTimeout <= 0 {
		d.CallTimeout = 2 * time.Minute
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.After == nil {
		d.After = newTimer
	}
	if d.OwnerRetry <= 0 {
		d.OwnerRetry = DefaultOwnerRetry
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Engine{deps: d, sem: make(chan struct{}, d.MaxConcurrentLLM), ctx: ctx, cancel: cancel}
}

// Close stops starting runners, lets running ones finish their current
// chunk for up to timeout, then cancels what is left. Unprocessed turns
// stay in Postgres and are segmented after the next start.
func (e *Engine) Close(timeout time.Duration) error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	done := make(chan struct{})
	go func() {
		e.runners.Wait()
		close(done)
	}()
	defer e.cancel()
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
		e.cancel()
		<-done
		return errors.New("L1 runners cancelled at shutdown")
	}
}

func newTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// start registers a runner unless the engine is closed.
func (e *Engine) start() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false
	}
	e.runners.Add(1)
	return true
}

// call runs f holding a slot of the global bound, with a per-call timeout.
// The call ends early when the engine closes.
func (e *Engine) call(f func(ctx context.Context) error) error {
	return e.callFrom(e.ctx, f)
}

// callFrom is call for a caller with its own context (a request).
func (e *Engine) callFrom(parent context.Context, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(parent, e.deps.CallTimeout)
	defer cancel()
	stop := context.AfterFunc(e.ctx, cancel)
	defer stop()
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-e.sem }()
	return f(ctx)
}

// EmbedQuery embeds one search query within the global bound. It returns
// nil without error when the engine has no embedder.
func (e *Engine) EmbedQuery(ctx context.Context, q string) ([]float32, error) {
	if e == nil || e.deps.Embedder == nil {
		return nil, nil
	}
	var v []float32
	err := e.callFrom(ctx, func(cctx context.Context) error {
		vs, err := e.deps.Embedder.Embed(cctx, []string{q})
		if err == nil && len(vs) == 1 {
			v = vs[0]
		}
		return err
	})
	return v, err
}
