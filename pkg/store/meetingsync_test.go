package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

func syncUtterances(from, n int) []store.Utterance {
	us := make([]store.Utterance, n)
	for i := range us {
		us[i] = store.Utterance{SegmentID: fmt.Sprint("seg-", from+i), SpeakerID: "s1", Text: "hello", Confidence: 1, Tokens: 1, Source: "api"}
	}
	return us
}

// Every committed change of a meeting's counters is told with the counters
// as committed: a stored batch, a topic save, the end-of-meeting pass and
// the end; a batch of duplicates, a rolled-back save and ending an ended
// meeting say nothing.
func TestListenMeetingsHearsCounterChanges(t *testing.T) {
	s := storetest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tenantID, meetingID := topicMeeting(t, s)
	heard := make(chan store.MeetingChange, 16)
	ready := make(chan struct{})
	listenCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- s.ListenMeetings(listenCtx, func() { close(ready) }, func(c store.MeetingChange) {
			if c.MeetingID == meetingID {
				heard <- c
			}
		})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("listen: %v", err)
	}
	next := func() store.MeetingChange {
		t.Helper()
		select {
		case c := <-heard:
			return c
		case <-ctx.Done():
			t.Fatal("no notification")
		}
		return store.MeetingChange{}
	}
	want := store.MeetingChange{TenantID: tenantID, MeetingID: meetingID, EndPass: -1}

	if _, err := s.Ingest(ctx, tenantID, meetingID, syncUtterances(0, 12)); err != nil {
		t.Fatal(err)
	}
	want.Utterances = 12
	if c := next(); c != want {
		t.Fatalf("after ingest heard %+v, want %+v", c, want)
	}
	// Duplicates change no counter.
	if _, err := s.Ingest(ctx, tenantID, meetingID, syncUtterances(0, 3)); err != nil {
		t.Fatal(err)
	}
	t0, t1 := topic(0, "a", nil), topic(1, "b", nil)
	t1.StartSeq, t1.EndSeq = 10, 11
	if err := s.SaveL1(ctx, tenantID, meetingID, 9, []store.TopicRow{t0}); err != nil {
		t.Fatal(err)
	}
	want.TopicVersion = 1
	if c := next(); c != want {
		t.Fatalf("after a topic save heard %+v, want %+v", c, want)
	}
	// A refused save (behind the stored topics) rolls back silently.
	if err := s.SaveL1(ctx, tenantID, meetingID, 5, nil); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("save behind the stored topics = %v", err)
	}
	if err := s.SaveL1EndPass(ctx, tenantID, meetingID, 11, []store.TopicRow{t0, t1}); err != nil {
		t.Fatal(err)
	}
	want.TopicVersion, want.EndPass = 2, 11
	if c := next(); c != want {
		t.Fatalf("after the end pass heard %+v, want %+v", c, want)
	}
	if _, err := s.EndMeeting(ctx, tenantID, meetingID); err != nil {
		t.Fatal(err)
	}
	want.Ended = true
	if c := next(); c != want {
		t.Fatalf("after the end heard %+v, want %+v", c, want)
	}
	if _, err := s.EndMeeting(ctx, tenantID, meetingID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ingest(ctx, tenantID, meetingID, syncUtterances(12, 1)); err != nil {
		t.Fatal(err)
	}
	want.Utterances = 13
	if c := next(); c != want {
		t.Fatalf("heard %+v, want only the later ingest %+v", c, want)
	}
	m, err := s.GetMeeting(ctx, tenantID, meetingID)
	if err != nil {
		t.Fatal(err)
	}
	if m.TopicVersion != 2 || m.EndPass != 11 || m.Utterances != 13 {
		t.Fatalf("meeting row: topic version %d, end pass %d, %d turns", m.TopicVersion, m.EndPass, m.Utterances)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("listen after cancel = %v, want nil", err)
	}
}

// One process at a time owns a meeting's L1 work; closing the owner (a
// drain) or ending its session (a killed process) hands it over.
func TestL1OwnersHandOver(t *testing.T) {
	dsn, schema := storetest.NewSchema(t)
	ctx := context.Background()
	open := func() *store.Store {
		s, err := store.Open(ctx, dsn, store.Options{Schema: schema, MaxConns: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	s1, s2 := open(), open()
	a, b := s1.NewL1Owners(), s2.NewL1Owners()
	defer a.Close()
	defer b.Close()
	m1, m2 := newUUID(), newUUID()
	// Releases are told on the meetings channel.
	released := make(chan string, 16)
	ready := make(chan struct{})
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		_ = s1.ListenMeetings(lctx, func() { close(ready) }, func(c store.MeetingChange) {
			if c.Released {
				released <- c.MeetingID
			}
		})
	}()
	<-ready
	heard := func(want string) {
		t.Helper()
		select {
		case id := <-released:
			if id != want {
				t.Fatalf("heard the release of %s, want %s", id, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("release of %s not heard", want)
		}
	}
	try := func(o *store.L1Owners, id string) bool {
		t.Helper()
		ok, err := o.TryAcquire(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !try(a, m1) || !try(a, m1) || try(b, m1) || !try(b, m2) {
		t.Fatal("want a to own m1 and b m2")
	}
	if !a.Held(ctx, m1) || b.Held(ctx, m1) || a.Count() != 1 {
		t.Fatal("Held disagrees with the locks")
	}
	a.Release(ctx, m1)
	heard(m1)
	if a.Held(ctx, m1) || !try(b, m1) || try(a, m1) {
		t.Fatal("a released m1; b must take it")
	}
	// b's session dies (as with SIGKILL): its meetings are free at once,
	// and b learns it no longer owns them.
	var pids []int32
	rows, err := s1.Pool().Query(ctx, `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
		AND pid <> pg_backend_pid() AND objid = (hashtextextended('mithub.l1.' || $1::text, 0) & x'ffffffff'::bigint)::oid`, m2)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var pid int32
		if err := rows.Scan(&pid); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	if rows.Err() != nil || len(pids) != 1 {
		t.Fatalf("sessions holding m2's lock: %v (%v)", pids, rows.Err())
	}
	if _, err := s1.Pool().Exec(ctx, `SELECT pg_terminate_backend($1)`, pids[0]); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !try(a, m2) {
		if time.Now().After(deadline) {
			t.Fatal("m2 not free after its owner's session ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if b.Held(ctx, m1) || b.Count() != 0 {
		t.Fatal("b still claims meetings after its session ended")
	}
	// A drained owner (Close) frees everything, says so, and takes
	// nothing more.
	a.Close()
	heard(m2)
	if try(a, m1) || !try(b, m1) || !try(b, m2) {
		t.Fatal("after a closed, b must own both")
	}
}
