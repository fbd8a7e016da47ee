package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrWriterClosed: the checkpoint writer has stopped.
var ErrWriterClosed = errors.New("checkpoint writer closed")

// Bounds of a CheckpointWriter.
const (
	// checkpointBatch is the most checkpoints written by one statement.
	checkpointBatch = 128
	// checkpointWriteTimeout bounds one batch's statement.
	checkpointWriteTimeout = 10 * time.Second
	// checkpointWriters is how many batches may be in flight at once: a
	// save waits for at most one batch ahead of its own.
	checkpointWriters = 2
)

// CheckpointWriter saves ask checkpoints with group commit: checkpoints
// that arrive while batches are being written go together in the next
// one, one statement and one commit for the lot. Each caller still waits
// for its own checkpoint to commit and gets the error SaveCheckpoint would
// have given it. Close it after the last Save.
type CheckpointWriter struct {
	st *Store
	b  *batcher[*checkpointReq]
}

type checkpointReq struct {
	tenantID string
	cp       Checkpoint
	err      chan error
}

// NewCheckpointWriter starts a writer.
func (s *Store) NewCheckpointWriter() *CheckpointWriter {
	w := &CheckpointWriter{st: s}
	w.b = newBatcher(checkpointWriters, checkpointBatch, w.write)
	return w
}

// Save stores step cp.Step of a thread like SaveCheckpoint, batched with
// other saves. If ctx ends first the checkpoint may still be written.
func (w *CheckpointWriter) Save(ctx context.Context, tenantID string, cp Checkpoint) error {
	if err := validCheckpoint(cp); err != nil {
		return err
	}
	if !isUUID(cp.MeetingID) {
		// Not a meeting id: it could not name a stored meeting, and one
		// bad row must not fail the others' statement.
		return fmt.Errorf("save thread %s: meeting %s: %w", cp.ThreadID, cp.MeetingID, ErrNotFound)
	}
	r := &checkpointReq{tenantID: tenantID, cp: cp, err: make(chan error, 1)}
	if err := w.b.submit(ctx, r); err != nil {
		if errors.Is(err, errBatcherClosed) {
			return ErrWriterClosed
		}
		return err
	}
	select {
	case err := <-r.err:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the writer once the saves it has accepted are written.
func (w *CheckpointWriter) Close() { w.b.close() }

// write saves one batch and answers its callers. A thread may appear
// once per statement (a later step must see the earlier one); repeats
// are returned for the next batch.
func (w *CheckpointWriter) write(reqs []*checkpointReq) (later []*checkpointReq) {
	type thread struct{ tenantID, threadID string }
	seen := make(map[thread]bool, len(reqs))
	batch := reqs[:0:0]
	for _, r := range reqs {
		k := thread{r.tenantID, r.cp.ThreadID}
		if seen[k] {
			later = append(later, r)
			continue
		}
		seen[k] = true
		batch = append(batch, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), checkpointWriteTimeout)
	defer cancel()
	rows := make([]TenantCheckpoint, len(batch))
	for i, r := range batch {
		rows[i] = TenantCheckpoint{TenantID: r.tenantID, Checkpoint: r.cp}
	}
	saved, err := w.st.saveCheckpoints(ctx, rows)
	for i, r := range batch {
		switch {
		case err != nil:
			r.err <- err
		case saved[i]:
			r.err <- nil
		default:
			// Not written: the meeting is gone, the step exists, or the
			// thread is another meeting's. The single save says which.
			r.err <- w.st.SaveCheckpoint(ctx, r.tenantID, r.cp)
		}
	}
	return later
}
