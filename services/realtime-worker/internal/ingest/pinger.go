package ingest

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/tracing"
)

// Syncer is the agent-api call the pinger makes.
type Syncer interface {
	Sync(ctx context.Context, meetingID string) (apiclient.SyncResult, error)
}

// Timing of the pinger.
const (
	pingTimeout  = 10 * time.Second
	pingRetryMin = 200 * time.Millisecond
	pingRetryMax = 3 * time.Second
)

// pingState is one meeting's coalescing state.
type pingState struct {
	running, pending bool
}

// Pinger sends POST /v1/meetings/{id}/sync after new rows were written.
// Per meeting at most one sync is in flight; pings that arrive meanwhile
// collapse into one pending sync that runs when it returns. A failed sync
// is retried with backoff until it succeeds or the pinger stops: the rows
// are already in PostgreSQL, the sync only tells agent-api to load them.
type Pinger struct {
	api Syncer
	log *slog.Logger
	ctx context.Context
	wg  sync.WaitGroup

	sent, failed atomic.Int64

	// mu guards state.
	mu    sync.Mutex
	state map[string]*pingState
}

// NewPinger returns a pinger whose syncs run until ctx ends.
func NewPinger(ctx context.Context, api Syncer, log *slog.Logger) *Pinger {
	return &Pinger{api: api, log: log, ctx: ctx, state: map[string]*pingState{}}
}

// Ping asks for a sync of the meeting; it never blocks.
func (p *Pinger) Ping(meetingID string) {
	p.mu.Lock()
	st := p.state[meetingID]
	if st == nil {
		st = &pingState{}
		p.state[meetingID] = st
	}
	if st.running {
		st.pending = true
		p.mu.Unlock()
		return
	}
	st.running = true
	p.mu.Unlock()
	p.wg.Go(func() { p.loop(meetingID, st) })
}

// loop syncs until no ping is pending.
func (p *Pinger) loop(meetingID string, st *pingState) {
	backoff := pingRetryMin
	for {
		ctx, cancel := context.WithTimeout(p.ctx, pingTimeout)
		ctx, span := tracing.Start(ctx, "sync meeting", trace.WithAttributes(attribute.String("mithub.meeting_id", meetingID)))
		_, err := p.api.Sync(ctx, meetingID)
		span.End()
		cancel()
		p.sent.Add(1)
		if err != nil {
			p.failed.Add(1)
			if p.ctx.Err() != nil {
				p.finish(meetingID)
				return
			}
			p.log.Warn("sync ping failed, retrying", "meeting_id", meetingID, "retry_in", backoff.String(), "err", err)
			select {
			case <-time.After(backoff):
			case <-p.ctx.Done():
				p.finish(meetingID)
				return
			}
			backoff = min(2*backoff, pingRetryMax)
			continue
		}
		backoff = pingRetryMin
		p.mu.Lock()
		if !st.pending {
			st.running = false
			delete(p.state, meetingID)
			p.mu.Unlock()
			return
		}
		st.pending = false
		p.mu.Unlock()
	}
}

func (p *Pinger) finish(meetingID string) {
	p.mu.Lock()
	delete(p.state, meetingID)
	p.mu.Unlock()
}

// Sent returns how many sync calls were made and how many failed.
func (p *Pinger) Sent() (sent, failed int64) { return p.sent.Load(), p.failed.Load() }

// Wait waits for running syncs; cancel the pinger's context first.
func (p *Pinger) Wait() { p.wg.Wait() }
