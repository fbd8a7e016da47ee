package meetingcache_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/store/storetest"
)

// reportPercentiles reports the p50 and p99 of ds in milliseconds.
func reportPercentiles(b *testing.B, name string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(p float64) float64 {
		return float64(ds[min(len(ds)-1, int(p*float64(len(ds))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.50), name+"_p50_ms")
	b.ReportMetric(at(0.99), name+"_p99_ms")
}

// BenchmarkWriteVisibility measures the time from a write acknowledged by
// one replica to the turn being in another replica's held context,
// carried by the meeting's notification alone (no read on that replica).
//
//	go test -run '^$' -bench WriteVisibility -benchtime 500x ./internal/meetingcache/
func BenchmarkWriteVisibility(b *testing.B) {
	reps := newReplicas(b, 2)
	a := reps[0]
	// Both hold the meeting; the turn written through a is watched in
	// the other's context.
	tenantID, meetingID, ms := heldMeeting(b, reps, "visibility")
	held := ms[1]
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		res := write(b, a, tenantID, meetingID, utterances("v", i, 1))
		acked := time.Now()
		seq := res.NextSeq - 1
		for held.Cursor() < seq {
			if time.Since(acked) > 10*time.Second {
				b.Fatalf("turn %d not visible on the other replica", seq)
			}
			time.Sleep(20 * time.Microsecond)
		}
		lat = append(lat, time.Since(acked))
	}
	b.StopTimer()
	reportPercentiles(b, "visible", lat)
}

// gatedSegmenter blocks its calls while blocked is set, as a model call
// in flight when its process dies.
type gatedSegmenter struct {
	*segment.Segmenter
	blocked atomic.Bool
	stuck   atomic.Int32 // calls waiting
}

func (g *gatedSegmenter) Segment(ctx context.Context, in meetingctx.SegmentInput) (meetingctx.SegmentOutput, error) {
	if g.blocked.Load() {
		g.stuck.Add(1)
		defer g.stuck.Add(-1)
		<-ctx.Done()
		return meetingctx.SegmentOutput{}, ctx.Err()
	}
	return g.Segmenter.Segment(ctx, in)
}

// BenchmarkTakeover measures the cost of a takeover: a chunk is due and
// its owner is stuck in the model call when it goes, and the time runs
// until the other replica has saved the chunk's topics. kill ends the
// owner's lock session from PostgreSQL's side (what a SIGKILL does): the
// other replica notices at its next retry, every MITHUB_CTX_OWNER_RETRY
// (default 1s). drain closes the owner's locks as a SIGTERM does, which
// tells the other replicas at once.
//
//	go test -run '^$' -bench Takeover -benchtime 20x ./internal/meetingcache/
func BenchmarkTakeover(b *testing.B) {
	b.Run("kill", func(b *testing.B) { benchTakeover(b, true) })
	b.Run("drain", func(b *testing.B) { benchTakeover(b, false) })
}

func benchTakeover(b *testing.B, kill bool) {
	dsn, schema := storetest.NewSchema(b)
	ctx := context.Background()
	var lat []time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		segs := []*gatedSegmenter{
			{Segmenter: segment.NewSegmenter(segment.SegmenterConfig{})},
			{Segmenter: segment.NewSegmenter(segment.SegmenterConfig{})},
		}
		reps := []*replica{
			openReplica(b, dsn, schema, meetingctx.DefaultOwnerRetry, segs[0]),
			openReplica(b, dsn, schema, meetingctx.DefaultOwnerRetry, segs[1]),
		}
		tenantID, meetingID, ms := heldMeeting(b, reps, "takeover")
		write(b, reps[0], tenantID, meetingID, utterances("a", 0, testChunk))
		poll(b, 5*time.Second, "first chunk", func() bool { return ms[1].Snapshot().L1Cursor == testChunk-1 })
		owner := slices.IndexFunc(ms, (*meetingctx.Manager).Owner)
		if owner < 0 {
			b.Fatal("no owner")
		}
		other := 1 - owner
		segs[owner].blocked.Store(true)
		write(b, reps[other], tenantID, meetingID, utterances("a", testChunk, testChunk))
		// Both have the chunk due: the owner is stuck on it, the other
		// replica retries.
		poll(b, 5*time.Second, "chunk due", func() bool {
			return segs[owner].stuck.Load() == 1 && ms[other].Snapshot().L1Busy
		})
		var pid int32
		if kill {
			if err := reps[other].st.Pool().QueryRow(ctx, `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
				AND objid = (hashtextextended('mithub.l1.' || $1::text, 0) & x'ffffffff'::bigint)::oid`, meetingID).Scan(&pid); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start := time.Now()
		if kill {
			if _, err := reps[other].st.Pool().Exec(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
				b.Fatal(err)
			}
		} else {
			reps[owner].owners.Close()
		}
		poll(b, 10*time.Second, "takeover", func() bool {
			rows, err := reps[other].st.ListTopics(ctx, tenantID, meetingID)
			return err == nil && len(rows) > 0 && rows[len(rows)-1].EndSeq == 2*testChunk-1
		})
		lat = append(lat, time.Since(start))
		b.StopTimer()
		for _, r := range reps {
			r.close()
			r.st.Close()
		}
	}
	reportPercentiles(b, "takeover", lat)
}
