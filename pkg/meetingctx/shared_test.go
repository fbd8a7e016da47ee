package meetingctx_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// sharedDB is the PostgreSQL of several replicas: stored turns, topics
// with their version, the meeting's end, and advisory locks held by
// sessions.
type sharedDB struct {
	mu      sync.Mutex
	turns   []meetingctx.Turn
	topics  []meetingctx.Topic
	version int64
	endPass int
	ended   bool
	locks   map[string]*session
}

type session struct {
	db   *sharedDB
	dead bool
}

func newSharedDB() *sharedDB { return &sharedDB{endPass: -1, locks: map[string]*session{}} }

func (d *sharedDB) Head(context.Context, string, string) (meetingctx.Head, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return meetingctx.Head{Turns: len(d.turns), TopicVersion: d.version, EndPass: d.endPass, Ended: d.ended}, nil
}

func (d *sharedDB) Topics(context.Context, string, string) ([]meetingctx.Topic, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]meetingctx.Topic(nil), d.topics...), nil
}

func (d *sharedDB) TurnsFrom(_ context.Context, _, _ string, from int) ([]meetingctx.Turn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]meetingctx.Turn(nil), d.turns[min(from, len(d.turns)):]...), nil
}

func (d *sharedDB) LoadTurns(_ context.Context, _, _ string, upTo int) ([]meetingctx.Turn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]meetingctx.Turn(nil), d.turns[:upTo+1]...), nil
}

func (d *sharedDB) SaveTopics(_ context.Context, _, _ string, l1Cursor int, topics []meetingctx.Topic) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	end := -1
	for _, t := range d.topics {
		end = max(end, t.EndSeq)
	}
	if end > l1Cursor {
		return errors.New("stored topics would go backwards")
	}
	d.topics = append([]meetingctx.Topic(nil), topics...)
	d.version++
	return nil
}

func (d *sharedDB) ingest(turns []meetingctx.Turn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.turns = append(d.turns, turns...)
}

// session opens a replica's lock connection.
func (d *sharedDB) session() *session { return &session{db: d} }

func (s *session) TryAcquire(_ context.Context, meetingID string) (bool, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if s.dead {
		return false, errors.New("connection closed")
	}
	if cur, ok := s.db.locks[meetingID]; ok && cur != s {
		return false, nil
	}
	s.db.locks[meetingID] = s
	return true, nil
}

func (s *session) Held(_ context.Context, meetingID string) bool {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	return !s.dead && s.db.locks[meetingID] == s
}

func (s *session) Release(_ context.Context, meetingID string) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if s.db.locks[meetingID] == s {
		delete(s.db.locks, meetingID)
	}
}

// kill ends the session, as when its process dies: its locks go.
func (s *session) kill() {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	s.dead = true
	for id, o := range s.db.locks {
		if o == s {
			delete(s.db.locks, id)
		}
	}
}

// chunkCounter counts segmentation calls per chunk (its first seq).
type chunkCounter struct {
	*fakeSegmenter
	mu    sync.Mutex
	calls map[int]int
}

func (c *chunkCounter) Segment(ctx context.Context, in meetingctx.SegmentInput) (meetingctx.SegmentOutput, error) {
	c.mu.Lock()
	c.calls[in.Turns[0].Seq]++
	c.mu.Unlock()
	return c.fakeSegmenter.Segment(ctx, in)
}

type replica struct {
	eng  *meetingctx.Engine
	sess *session
	m    *meetingctx.Manager
}

func TestReplicasSegmentEachChunkOnceAndSurviveTheOwner(t *testing.T) {
	db := newSharedDB()
	seg := &chunkCounter{fakeSegmenter: &fakeSegmenter{}, calls: map[int]int{}}
	cfg := meetingctx.Config{ChunkTurns: 5, MaxTopics: 1000}
	reps := make([]*replica, 3)
	for i := range reps {
		r := &replica{sess: db.session()}
		r.eng = meetingctx.NewEngine(meetingctx.EngineDeps{Segmenter: seg, Summarizer: &fakeSummarizer{}, Embedder: &fakeEmbedder{},
			Store: db, Owner: r.sess, Shared: db, OwnerRetry: 20 * time.Millisecond})
		t.Cleanup(func() { r.eng.Close(5 * time.Second) })
		r.m = meetingctx.New("t", "m1", cfg, r.eng)
		reps[i] = r
	}
	ctx := context.Background()
	all := meetingTurns("m1", 0, 83, func(s int) bool { return s%7 == 0 })
	// tell is a notification: every live replica refreshes from the store.
	tell := func(live []*replica) {
		t.Helper()
		for _, r := range live {
			if err := r.m.Refresh(ctx, db, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	// settled waits until every live replica shows the stored topics and
	// no replica has L1 work due.
	settled := func(live []*replica) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			tell(live)
			stored, _ := db.Topics(ctx, "t", "m1")
			same := true
			for _, r := range live {
				s := r.m.Snapshot()
				if s.L1Busy || !reflect.DeepEqual(titles(s.Topics), titles(stored)) {
					same = false
				}
			}
			if same {
				return
			}
			if time.Now().After(deadline) {
				for i, r := range live {
					s := r.m.Snapshot()
					t.Logf("replica %d: busy %v, l1 cursor %d, %d topics", i, s.L1Busy, s.L1Cursor, len(s.Topics))
				}
				t.Fatalf("replicas did not settle on the %d stored topics", len(stored))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	live := reps
	write := func(from, to int) {
		for i := from; i < to; i += 3 {
			db.ingest(all[i:min(i+3, to)])
			tell(live)
		}
	}
	write(0, 30)
	settled(live)
	owners := 0
	var owner *replica
	for _, r := range live {
		if r.m.Owner() {
			owners++
			owner = r
		}
	}
	if owners != 1 {
		t.Fatalf("%d replicas own the meeting", owners)
	}
	// The owner dies: its session ends, its engine stops.
	owner.sess.kill()
	owner.eng.Close(time.Second)
	live = without(live, owner)
	write(30, 60)
	settled(live)
	// The next owner drains: it releases the meeting.
	for _, r := range live {
		if r.m.Owner() {
			r.eng.Close(time.Second)
			r.sess.kill()
			live = without(live, r)
			break
		}
	}
	if len(live) != 1 {
		t.Fatalf("%d live replicas, want 1", len(live))
	}
	write(60, 83)
	db.mu.Lock()
	db.ended = true
	db.mu.Unlock()
	settled(live)

	stored, _ := db.Topics(ctx, "t", "m1")
	checkTiling(t, stored, 82)
	checkTiling(t, live[0].m.Snapshot().Topics, 82)
	seg.mu.Lock()
	defer seg.mu.Unlock()
	for first, n := range seg.calls {
		if n != 1 {
			t.Errorf("chunk from seq %d segmented %d times", first, n)
		}
	}
	if len(seg.calls) < 83/5 {
		t.Errorf("%d chunks segmented, want at least %d", len(seg.calls), 83/5)
	}
}

func titles(ts []meetingctx.Topic) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = fmt.Sprintf("%s %d-%d v%d", t.ID, t.StartSeq, t.EndSeq, t.Version)
	}
	return out
}

func without(rs []*replica, r *replica) []*replica {
	var out []*replica
	for _, x := range rs {
		if x != r {
			out = append(out, x)
		}
	}
	return out
}
