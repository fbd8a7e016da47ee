package ingest

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/mithub/mithub/pkg/store"
)

// Store is the part of pkg/store the writer needs.
type Store interface {
	Ingest(ctx context.Context, tenantID, meetingID string, us []store.Utterance) (store.IngestResult, error)
}

// Timing of the writer.
const (
	// writeTimeout bounds one batch write.
	writeTimeout = 5 * time.Second
	// retryMin and retryMax bound the pause between drain attempts while
	// the database is unreachable.
	retryMin = 100 * time.Millisecond
	retryMax = 2 * time.Second
	// queueLen is how many operations may wait for the writer.
	queueLen = 4096
)

// Stats are the writer's running totals.
type Stats struct {
	// Stored segments were inserted; Duplicates were already there.
	Stored, Duplicates int64
	// Spooled segments went through the spool; Dropped were refused by a
	// full spool or rejected by the database as invalid.
	Spooled, Dropped int64
	// Pending is the number of segments in the spool now.
	Pending int64
}

// op is one request to the writer goroutine: a segment or a barrier.
type op struct {
	rec     record
	barrier chan bool // replies whether the spool is empty
	// journaled: rec is in the journal.
	journaled bool
}

// Writer batches final segments into the database. Add and Flush may be
// called from any goroutine; Run owns the spool and every write.
type Writer struct {
	st       Store
	spool    *Spool
	jl       *Journal
	log      *slog.Logger
	batchMax int
	// stored is called after segments of a meeting were inserted.
	stored func(meetingID string, inserted int)
	in     chan op
	done   chan struct{}

	stats struct {
		stored, dups, spooled, dropped, pending atomic.Int64
	}
}

// NewWriter returns a writer over st and spool. stored, when not nil, is
// called on the writer goroutine after each batch that inserted rows.
func NewWriter(st Store, spool *Spool, batchMax int, log *slog.Logger, stored func(meetingID string, inserted int)) *Writer {
	w := &Writer{
		st: st, spool: spool, jl: spool.Journal(), log: log, batchMax: max(batchMax, 1), stored: stored,
		in: make(chan op, queueLen), done: make(chan struct{}),
	}
	w.stats.pending.Store(int64(spool.Len()))
	return w
}

// Add journals one validated final segment and queues it; once Add
// returns nil the segment survives a crash of the process. It blocks while
// the queue is full, until ctx ends.
func (w *Writer) Add(ctx context.Context, tenantID, meetingID string, u store.Utterance) error {
	if err := w.jl.lock(ctx); err != nil {
		return err
	}
	defer w.jl.unlock()
	o := op{rec: record{TenantID: tenantID, MeetingID: meetingID, U: u}, journaled: true}
	if err := w.jl.append(o.rec); err != nil {
		// A full or broken disk: the segment is still written, only not
		// protected against a crash.
		w.log.Error("journal segment", "meeting_id", meetingID, "segment_id", u.SegmentID, "err", err)
		o.journaled = false
	}
	select {
	case w.in <- o:
		return nil
	case <-w.done:
		w.unjournal(o)
		return ErrStopped
	case <-ctx.Done():
		w.unjournal(o)
		return ctx.Err()
	}
}

// unjournal takes back the journal record of an op that was not queued.
func (w *Writer) unjournal(o op) {
	if o.journaled {
		w.jl.unappend()
	}
}

// Flush waits until every segment added before it is in the database or
// the spool, and reports whether the spool is empty.
func (w *Writer) Flush(ctx context.Context) (bool, error) {
	reply := make(chan bool, 1)
	select {
	case w.in <- op{barrier: reply}:
	case <-w.done:
		return false, ErrStopped
	case <-ctx.Done():
		return false, ctx.Err()
	}
	select {
	case empty := <-reply:
		return empty, nil
	case <-w.done:
		return false, ErrStopped
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// Stats returns the running totals.
func (w *Writer) Stats() Stats {
	return Stats{
		Stored: w.stats.stored.Load(), Duplicates: w.stats.dups.Load(),
		Spooled: w.stats.spooled.Load(), Dropped: w.stats.dropped.Load(), Pending: w.stats.pending.Load(),
	}
}

// Run writes until ctx ends. Segments still queued then are written
// within drainTimeout, or spooled for the next start.
func (w *Writer) Run(ctx context.Context, drainTimeout time.Duration) {
	defer close(w.done)
	retry := time.NewTimer(time.Hour)
	defer retry.Stop()
	armed, backoff := false, retryMin
	for {
		if w.spool.Len() > 0 && !armed {
			retry.Reset(backoff)
			armed = true
		}
		select {
		case o := <-w.in:
			w.handle(ctx, w.collect(o))
		case <-retry.C:
			armed = false
			if w.drain(ctx) {
				backoff = retryMin
			} else {
				backoff = min(2*backoff, retryMax)
			}
		case <-ctx.Done():
			w.stop(drainTimeout)
			return
		}
	}
}

// collect takes o and whatever else is queued, up to a batch, stopping at
// a barrier so that it answers after the segments before it.
func (w *Writer) collect(o op) []op {
	ops := []op{o}
	for o.barrier == nil && len(ops) < w.batchMax {
		select {
		case o = <-w.in:
			ops = append(ops, o)
		default:
			return ops
		}
	}
	return ops
}

// handle writes the segments of ops in order (through the spool when it
// is not empty, so order holds) and answers barriers once the journal
// knows the segments before them are written.
func (w *Writer) handle(ctx context.Context, ops []op) {
	var recs []record
	from := 0
	for i, o := range ops {
		if o.barrier != nil {
			w.write(ctx, recs)
			recs = nil
			w.journaled(ops[from:i])
			from = i + 1
			if w.spool.Len() > 0 {
				w.drain(ctx)
			}
			o.barrier <- w.spool.Len() == 0
			continue
		}
		recs = append(recs, o.rec)
	}
	w.write(ctx, recs)
	w.journaled(ops[from:])
}

// journaled tells the journal that the segments of ops are stored,
// spooled or dropped.
func (w *Writer) journaled(ops []op) {
	n := 0
	for _, o := range ops {
		if o.journaled {
			n++
		}
	}
	if err := w.jl.markDone(n); err != nil {
		w.log.Error("journal", "err", err)
	}
}

// write stores recs directly when the spool is empty, grouping runs of
// one meeting; from the first failure on, everything goes to the spool.
func (w *Writer) write(ctx context.Context, recs []record) {
	for len(recs) > 0 {
		if w.spool.Len() > 0 {
			w.toSpool(recs)
			return
		}
		n := 1
		for n < len(recs) && recs[n].MeetingID == recs[0].MeetingID && recs[n].TenantID == recs[0].TenantID {
			n++
		}
		if !w.ingest(ctx, recs[:n]) {
			w.toSpool(recs)
			return
		}
		recs = recs[n:]
	}
}

// ingest writes one meeting's batch. It returns false when the database
// could not be reached, so the batch must wait in the spool; a batch the
// database rejects is dropped and logged.
func (w *Writer) ingest(ctx context.Context, recs []record) bool {
	us := make([]store.Utterance, len(recs))
	for i, r := range recs {
		us[i] = r.U
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	res, err := w.st.Ingest(wctx, recs[0].TenantID, recs[0].MeetingID, us)
	switch {
	case err == nil:
		w.stats.stored.Add(int64(len(res.Inserted)))
		w.stats.dups.Add(int64(res.Duplicates))
		if len(res.Inserted) > 0 && w.stored != nil {
			w.stored(recs[0].MeetingID, len(res.Inserted))
		}
		return true
	case permanent(err):
		w.stats.dropped.Add(int64(len(recs)))
		w.log.Error("segments rejected by the database, dropped", "meeting_id", recs[0].MeetingID,
			"segments", len(recs), "err", err)
		return true
	}
	w.log.Warn("database write failed, spooling", "meeting_id", recs[0].MeetingID, "segments", len(recs), "err", err)
	return false
}

// permanent reports errors that a retry cannot fix.
func permanent(err error) bool {
	return errors.Is(err, store.ErrInvalid) || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrConflict)
}

func (w *Writer) toSpool(recs []record) {
	n, err := w.spool.Append(recs)
	w.stats.spooled.Add(int64(n))
	w.stats.pending.Store(int64(w.spool.Len()))
	if err != nil {
		w.stats.dropped.Add(int64(len(recs) - n))
		w.log.Error("spool refused segments, dropped", "segments", len(recs)-n, "spool_bytes", w.spool.Bytes(), "err", err)
	}
}

// drain writes spooled batches in order until the spool is empty or a
// write fails; it reports whether the spool is now empty.
func (w *Writer) drain(ctx context.Context) bool {
	for w.spool.Len() > 0 {
		head := w.spool.Head(w.batchMax)
		if !w.ingest(ctx, head) {
			return false
		}
		if err := w.spool.Commit(len(head)); err != nil {
			w.log.Error("commit spool", "err", err)
		}
		w.stats.pending.Store(int64(w.spool.Len()))
	}
	w.log.Info("spool drained")
	return true
}

// stop writes what is still queued within timeout; the rest is spooled.
func (w *Writer) stop(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		select {
		case o := <-w.in:
			switch {
			case o.barrier != nil:
				o.barrier <- w.spool.Len() == 0
			case ctx.Err() != nil:
				w.toSpool([]record{o.rec})
				w.journaled([]op{o})
			default:
				w.handle(ctx, w.collect(o))
			}
		default:
			if ctx.Err() == nil && w.spool.Len() > 0 {
				w.drain(ctx)
			}
			return
		}
	}
}
