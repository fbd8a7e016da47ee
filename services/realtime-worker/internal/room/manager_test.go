package room

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

// leaseEnv is a migrated store with one meeting and a Redis key prefix of
// its own.
type leaseEnv struct {
	st      *store.Store
	rdb     *redis.Client
	prefix  string
	tenant  string
	meeting store.Meeting
	// active counts running sessions per room across managers; overlap
	// counts starts that found another session of the room running.
	active  sync.Map
	overlap atomic.Int64
}

func newLeaseEnv(t *testing.T) *leaseEnv {
	t.Helper()
	u := os.Getenv("MITHUB_TEST_REDIS_URL")
	if u == "" {
		u = "redis://127.0.0.1:6379/14"
	}
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := &leaseEnv{st: storetest.New(t), rdb: redis.NewClient(opt),
		prefix: fmt.Sprintf("test:rt:lease:%d:", time.Now().UnixNano())}
	t.Cleanup(func() { e.rdb.Del(context.Background(), e.prefix+"standup"); e.rdb.Close() })
	tn, err := e.st.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	e.tenant = tn.ID
	if e.meeting, err = e.st.CreateMeeting(ctx, tn.ID, store.NewMeeting{Title: "스탠드업", RoomName: "standup"}); err != nil {
		t.Fatal(err)
	}
	return e
}

// countingLeaser counts acquire attempts.
type countingLeaser struct {
	Leaser
	acquires atomic.Int64
}

func (c *countingLeaser) Acquire(ctx context.Context, room, owner string, ttl time.Duration) (bool, error) {
	c.acquires.Add(1)
	return c.Leaser.Acquire(ctx, room, owner, ttl)
}

// worker is a manager whose sessions, instead of joining LiveKit, mark
// the room served until they are stopped.
type worker struct {
	m      *Manager
	leases *countingLeaser
	cancel context.CancelFunc
}

func (e *leaseEnv) worker(t *testing.T, owner string, ttl, retry time.Duration) *worker {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &countingLeaser{Leaser: NewRedisLeaser(e.rdb, e.prefix)}
	m := NewManager(ctx, ManagerConfig{
		Deps:     Deps{Log: slog.New(slog.NewTextHandler(t.Output(), nil)).With("owner", owner)},
		Meetings: e.st, Leases: l, Owner: owner, LeaseTTL: ttl, LeaseRetry: retry, TenantID: e.tenant,
	})
	m.runSession = func(ctx context.Context, s *Session) outcome {
		n, _ := e.active.LoadOrStore(s.room, new(atomic.Int64))
		if n.(*atomic.Int64).Add(1) > 1 {
			e.overlap.Add(1)
		}
		defer n.(*atomic.Int64).Add(-1)
		<-ctx.Done()
		return stopped
	}
	w := &worker{m: m, leases: l, cancel: cancel}
	t.Cleanup(func() { cancel(); m.Wait() })
	return w
}

func (w *worker) serves(room string) bool {
	_, ok := w.m.Rooms()[room]
	return ok
}

func (w *worker) waits(room string) bool {
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	return w.m.waiting[room]
}

func (w *worker) stop() { w.cancel(); w.m.Wait() }

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRestartedWorkerReclaimsItsLeaseAtOnce(t *testing.T) {
	e := newLeaseEnv(t)
	ctx := context.Background()
	// The lease of the same replica's previous, killed process.
	if err := e.rdb.Set(ctx, e.prefix+"standup", "replica-1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	// A retry interval of an hour: only the join itself can start the session.
	w := e.worker(t, "replica-1", time.Minute, time.Hour)
	id, err := w.m.Join(ctx, "standup", "")
	if err != nil || id != e.meeting.ID {
		t.Fatalf("Join = %q, %v; want meeting %s", id, err, e.meeting.ID)
	}
	if !w.serves("standup") {
		t.Fatal("the restarted replica does not serve the room whose lease it held")
	}
	if got := e.rdb.Get(ctx, e.prefix+"standup").Val(); got != "replica-1" {
		t.Errorf("lease owner %q", got)
	}
}

func TestAnotherWorkerTakesTheRoomAfterTheLeaseExpires(t *testing.T) {
	e := newLeaseEnv(t)
	ctx := context.Background()
	// A dead replica's lease, expiring on its own.
	if err := e.rdb.Set(ctx, e.prefix+"standup", "replica-dead", 500*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	w := e.worker(t, "replica-2", 3*time.Second, 20*time.Millisecond)
	if _, err := w.m.Join(ctx, "standup", e.meeting.ID); err != nil {
		t.Fatal(err)
	}
	if w.serves("standup") {
		t.Fatal("joined a room whose lease another owner holds")
	}
	waitUntil(t, "the room taken over without another join", func() bool { return w.serves("standup") })
	if got := e.rdb.Get(ctx, e.prefix+"standup").Val(); got != "replica-2" {
		t.Errorf("lease owner %q, want replica-2", got)
	}
	if w.waits("standup") {
		t.Error("still waiting for a room it serves")
	}
}

// bothJoinStandup has replicas a and b join "standup", a first.
func bothJoinStandup(t *testing.T) (*leaseEnv, *worker, *worker) {
	t.Helper()
	e := newLeaseEnv(t)
	a := e.worker(t, "replica-a", 600*time.Millisecond, 20*time.Millisecond)
	b := e.worker(t, "replica-b", 600*time.Millisecond, 20*time.Millisecond)
	for _, w := range []*worker{a, b} {
		if _, err := w.m.Join(context.Background(), "standup", ""); err != nil {
			t.Fatal(err)
		}
	}
	return e, a, b
}

func TestTwoLiveWorkersNeverServeOneRoom(t *testing.T) {
	e, a, b := bothJoinStandup(t)
	// b keeps trying across several of a's renewals (every 200 ms) and
	// lease lifetimes.
	waitUntil(t, "b to try many times", func() bool { return b.leases.acquires.Load() >= 100 })
	if b.serves("standup") || !a.serves("standup") {
		t.Fatalf("a serves %v, b serves %v; want only a", a.serves("standup"), b.serves("standup"))
	}
	a.stop()
	waitUntil(t, "b to take the room a left", func() bool { return b.serves("standup") })
	if n := e.overlap.Load(); n != 0 {
		t.Errorf("%d session starts while another worker served the room", n)
	}
}

func TestWaitingEndsWithTheMeeting(t *testing.T) {
	e, a, b := bothJoinStandup(t)
	if !b.waits("standup") {
		t.Fatal("b does not wait for the room")
	}
	// a ends the meeting and leaves: b must not record an ended meeting.
	if _, err := e.st.EndMeeting(context.Background(), e.tenant, e.meeting.ID); err != nil {
		t.Fatal(err)
	}
	a.stop()
	waitUntil(t, "b to stop waiting", func() bool { return !b.waits("standup") })
	if b.serves("standup") {
		t.Error("b took the room of an ended meeting")
	}
}
