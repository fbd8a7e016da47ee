package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Bounds of a MeetingReader.
const (
	// meetingBatch is the most meeting rows asked for in one statement.
	meetingBatch = 128
	// meetingReadTimeout bounds one batch's statement.
	meetingReadTimeout = 10 * time.Second
	// meetingReaders is how many batches may be in flight at once: one,
	// so that reads asked for meanwhile gather (two in flight left most
	// batches with a single row under the ask benchmark).
	meetingReaders = 1
)

// MeetingReader reads meeting rows for many callers at once: rows asked
// for while reads are under way go together in the next statement. A
// caller's row is read after it asked, so it is as fresh as GetMeeting's,
// and each caller gets the row or the error GetMeeting would have given
// it. After Close, Get reads on its own. Close it before the store.
type MeetingReader struct {
	st *Store
	b  *batcher[*meetingReq]
}

type meetingReq struct {
	tenantID, id string
	res          chan meetingRes
}

type meetingRes struct {
	m   Meeting
	err error
}

// NewMeetingReader starts a reader.
func (s *Store) NewMeetingReader() *MeetingReader {
	r := &MeetingReader{st: s}
	r.b = newBatcher(meetingReaders, meetingBatch, r.read)
	return r
}

// Get returns the tenant's meeting id like GetMeeting, batched with other
// reads.
func (r *MeetingReader) Get(ctx context.Context, tenantID, id string) (Meeting, error) {
	if !isUUID(id) {
		// Not a meeting id: it names no stored meeting, and one bad id
		// must not fail the others' statement.
		return Meeting{}, fmt.Errorf("get meeting %s: %w", id, ErrNotFound)
	}
	// Rows come back with ids in lower case.
	req := &meetingReq{tenantID: tenantID, id: strings.ToLower(id), res: make(chan meetingRes, 1)}
	if err := r.b.submit(ctx, req); err != nil {
		if errors.Is(err, errBatcherClosed) {
			return r.st.GetMeeting(ctx, tenantID, id)
		}
		return Meeting{}, err
	}
	select {
	case res := <-req.res:
		return res.m, res.err
	case <-ctx.Done():
		return Meeting{}, ctx.Err()
	}
}

// Close stops the reader once the reads it has accepted are answered.
func (r *MeetingReader) Close() { r.b.close() }

// read answers one batch with one statement.
func (r *MeetingReader) read(reqs []*meetingReq) []*meetingReq {
	ids := make([]string, 0, len(reqs))
	seen := make(map[string]bool, len(reqs))
	for _, q := range reqs {
		if !seen[q.id] {
			seen[q.id] = true
			ids = append(ids, q.id)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), meetingReadTimeout)
	defer cancel()
	byID, err := r.st.meetingsByID(ctx, ids)
	for _, q := range reqs {
		m, ok := byID[q.id]
		switch {
		case err != nil:
			q.res <- meetingRes{err: fmt.Errorf("get meeting %s: %w", q.id, err)}
		case !ok || m.TenantID != q.tenantID:
			// Another tenant's meeting is not found, as in GetMeeting.
			q.res <- meetingRes{err: fmt.Errorf("get meeting %s: %w", q.id, ErrNotFound)}
		default:
			q.res <- meetingRes{m: m}
		}
	}
	return nil
}
