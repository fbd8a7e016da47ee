package meetingcache_test

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/agent-api/internal/meetingcache"
)

// replica is one agent-api process as the cache sees it: its own pool,
// lock connection, engine, cache and listener.
type replica struct {
	st     *store.Store
	owners *store.L1Owners
	eng    *meetingctx.Engine
	cache  *meetingcache.Cache
	stop   context.CancelFunc
	done   chan struct{}
	// told counts the meetings changes the cache passed on (OnChange).
	told atomic.Int64
}

// close drains the replica: its listener stops, its runners finish and
// its locks go.
func (r *replica) close() {
	r.stop()
	<-r.done
	r.eng.Close(5 * time.Second)
	r.owners.Close()
}

const testChunk = 10

// newReplicas opens n replicas on one fresh schema.
func newReplicas(t testing.TB, n int) []*replica {
	t.Helper()
	dsn, schema := storetest.NewSchema(t)
	reps := make([]*replica, n)
	for i := range reps {
		reps[i] = openReplica(t, dsn, schema, 50*time.Millisecond, nil)
	}
	return reps
}

// openReplica opens a replica on the schema (migrating it when needed);
// seg, when set, replaces the local segmenter.
// heldMeeting creates a meeting of tenant "acme" and has every replica
// hold its context; it returns the tenant and meeting ids and the
// replicas' managers, in order.
func heldMeeting(tb testing.TB, reps []*replica, title string) (string, string, []*meetingctx.Manager) {
	tb.Helper()
	ctx := context.Background()
	tn, err := reps[0].st.EnsureTenant(ctx, "acme")
	if err != nil {
		tb.Fatal(err)
	}
	mt, err := reps[0].st.CreateMeeting(ctx, tn.ID, store.NewMeeting{Title: title})
	if err != nil {
		tb.Fatal(err)
	}
	ms := make([]*meetingctx.Manager, len(reps))
	for i, r := range reps {
		if ms[i], err = r.cache.Get(ctx, tn.ID, mt.ID); err != nil {
			tb.Fatal(err)
		}
	}
	return tn.ID, mt.ID, ms
}

func openReplica(t testing.TB, dsn, schema string, retry time.Duration, seg meetingctx.Segmenter) *replica {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dsn, store.Options{Schema: schema, MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if seg == nil {
		seg = segment.NewSegmenter(segment.SegmenterConfig{})
	}
	r := &replica{st: st, owners: st.NewL1Owners(), done: make(chan struct{})}
	r.eng = meetingctx.NewEngine(meetingctx.EngineDeps{
		Segmenter: seg, Summarizer: segment.NewSummarizer(),
		Embedder: segment.NewEmbedder(64), Store: meetingcache.TopicStore{Rows: st},
		Turns: meetingcache.TurnSource{Rows: st}, Owner: r.owners, Shared: meetingcache.Shared{Rows: st},
		OwnerRetry: retry,
	})
	r.cache = meetingcache.New(st, meetingctx.Config{ChunkTurns: testChunk}, r.eng, 100, time.Hour, meetingcache.Observer{})
	r.cache.OnChange(func(string) { r.told.Add(1) })
	var lctx context.Context
	lctx, r.stop = context.WithCancel(ctx)
	ready := make(chan struct{})
	go func() {
		defer close(r.done)
		r.cache.Run(lctx, readyListener{st, ready}, slog.New(slog.DiscardHandler))
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("replica does not listen")
	}
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			r.close()
		}
		st.Close()
	})
	return r
}

// readyListener tells when the cache listens.
type readyListener struct {
	st    *store.Store
	ready chan struct{}
}

func (l readyListener) ListenMeetings(ctx context.Context, ready func(), changed func(store.MeetingChange)) error {
	return l.st.ListenMeetings(ctx, func() {
		ready()
		select {
		case <-l.ready:
		default:
			close(l.ready)
		}
	}, changed)
}

func utterances(prefix string, from, n int) []store.Utterance {
	words := []string{"budget", "hiring", "launch", "pricing", "security"}
	us := make([]store.Utterance, n)
	for i := range us {
		k := from + i
		us[i] = store.Utterance{SegmentID: fmt.Sprintf("%s-%05d", prefix, k), SpeakerID: "s1", SpeakerName: "Kim",
			Text:    fmt.Sprintf("we discuss the %s plan, item %d", words[(k/12)%len(words)], k),
			StartMS: int64(k) * 1000, EndMS: int64(k)*1000 + 900, Confidence: 1, Tokens: 10, Source: "api"}
	}
	return us
}

// write stores a batch through r, as its ingest does.
func write(t testing.TB, r *replica, tenantID, meetingID string, us []store.Utterance) store.IngestResult {
	t.Helper()
	ctx := context.Background()
	res, err := r.st.Ingest(ctx, tenantID, meetingID, us)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.cache.ApplyInserted(ctx, tenantID, meetingID, res.Inserted); err != nil {
		t.Fatal(err)
	}
	return res
}

// poll waits for cond, failing after d.
func poll(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func spans(ts []meetingctx.Topic) [][3]int {
	out := make([][3]int, len(ts))
	for i, t := range ts {
		out[i] = [3]int{t.StartSeq, t.EndSeq, t.Version}
	}
	return out
}

func TestHeldContextFollowsNotifiedWrites(t *testing.T) {
	reps := newReplicas(t, 2)
	a, b := reps[0], reps[1]
	ctx := context.Background()
	// Both replicas hold the meeting; only notifications move b's.
	tenantID, meetingID, ms := heldMeeting(t, reps, "sync")
	ma, mb := ms[0], ms[1]
	for i := 0; i < 57; i += 4 {
		write(t, a, tenantID, meetingID, utterances("a", i, min(4, 57-i)))
	}
	poll(t, 5*time.Second, "b sees a's turns", func() bool { return mb.Cursor() == 56 })
	poll(t, 5*time.Second, "b's cache passes the change on (to wake its event streams)", func() bool { return b.told.Load() > 0 })
	poll(t, 5*time.Second, "b shows the topics a's owner saved", func() bool {
		rows, err := b.st.ListTopics(ctx, tenantID, meetingID)
		return err == nil && len(rows) > 0 && reflect.DeepEqual(spans(mb.Snapshot().Topics), spans(meetingcache.Topics(rows)))
	})
	if ma.Owner() == mb.Owner() {
		t.Fatalf("owner on a: %v, on b: %v; want exactly one", ma.Owner(), mb.Owner())
	}
	// The end reaches b too; the owner segments the tail and every
	// replica ends up with the same tiling of all 57 turns.
	if _, err := b.st.EndMeeting(ctx, tenantID, meetingID); err != nil {
		t.Fatal(err)
	}
	poll(t, 10*time.Second, "both replicas settle on the stored final topics", func() bool {
		row, err := a.st.GetMeeting(ctx, tenantID, meetingID)
		if err != nil || row.EndPass != 56 {
			return false
		}
		rows, err := a.st.ListTopics(ctx, tenantID, meetingID)
		if err != nil {
			return false
		}
		want := spans(meetingcache.Topics(rows))
		sa, sb := ma.Snapshot(), mb.Snapshot()
		return !sa.L1Busy && !sb.L1Busy && reflect.DeepEqual(spans(sa.Topics), want) && reflect.DeepEqual(spans(sb.Topics), want)
	})
	rows, err := a.st.ListTopics(ctx, tenantID, meetingID)
	if err != nil {
		t.Fatal(err)
	}
	checkTiling(t, meetingcache.Topics(rows), 56)
}

func TestDrainedOwnerIsTakenOver(t *testing.T) {
	reps := newReplicas(t, 2)
	ctx := context.Background()
	tenantID, meetingID, ms := heldMeeting(t, reps, "takeover")
	write(t, reps[0], tenantID, meetingID, utterances("a", 0, testChunk))
	poll(t, 5*time.Second, "an owner segments the first chunk", func() bool {
		return ms[0].Snapshot().L1Cursor == testChunk-1 && ms[1].Snapshot().L1Cursor == testChunk-1
	})
	owner := slices.IndexFunc(ms, (*meetingctx.Manager).Owner)
	if owner < 0 {
		t.Fatal("no replica owns the meeting")
	}
	other := 1 - owner
	reps[owner].close()
	write(t, reps[other], tenantID, meetingID, utterances("a", testChunk, testChunk))
	poll(t, 5*time.Second, "the other replica takes over and segments the next chunk", func() bool {
		rows, err := reps[other].st.ListTopics(ctx, tenantID, meetingID)
		return err == nil && len(rows) > 0 && rows[len(rows)-1].EndSeq == 2*testChunk-1
	})
	if !ms[other].Owner() {
		t.Fatal("the other replica does not own the meeting")
	}
}

// checkTiling fails unless topics cover 0..last contiguously, in order.
func checkTiling(t testing.TB, topics []meetingctx.Topic, last int) {
	t.Helper()
	next := 0
	for i, tp := range topics {
		if tp.StartSeq != next || tp.EndSeq < tp.StartSeq || tp.Seq != i {
			t.Fatalf("topic %d spans %d-%d (seq %d), expected to start at %d", i, tp.StartSeq, tp.EndSeq, tp.Seq, next)
		}
		next = tp.EndSeq + 1
	}
	if next != last+1 {
		t.Fatalf("topics end at %d, want %d", next-1, last)
	}
}
