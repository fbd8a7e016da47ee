package jobs_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"google.golang.org/protobuf/proto"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/services/pr-worker/internal/jobs"
)

// synthStore is a PRStore over generated meetings: meeting "m-<n>" has n
// turns, made on the fly from the turn's seq, so the store itself holds
// nothing (ids are UUIDs whose last group is n). EachTranscript builds each page as a database read would.
type synthStore struct {
	mu        sync.Mutex
	completed map[string]meetingpr.Content
	failed    map[string]string
}

func newSynthStore() *synthStore {
	return &synthStore{completed: map[string]meetingpr.Content{}, failed: map[string]string{}}
}

func synthID(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

func synthTurns(meetingID string) int {
	var n int
	if _, err := fmt.Sscanf(meetingID, "00000000-0000-4000-8000-%012d", &n); err != nil {
		return 0
	}
	return n
}

var (
	synthSpeakers = []string{"Alice", "Bob", "민수", "지영", "Carol", "Project Manager"}
	synthCues     = []string{
		"We decided to move the %s review to Friday.",
		"I'll send the %s notes to everyone by Monday.",
		"Can you check the %s numbers before the release?",
		"제가 %s 문서를 금요일까지 정리하겠습니다.",
		"%s 일정은 다음 주 월요일로 하기로 했습니다.",
		"How should we handle the %s migration for old accounts?",
		"아직 %s 방식은 결정되지 않았습니다.",
	}
)

// synthWord is one of 4,000 words, so the vocabulary stops growing as a
// real meeting's nearly does.
func synthWord(k int) string {
	k %= 4000
	if k%5 == 0 {
		return string([]rune("가나다라마바사아자차카타파하")[k%14]) + string([]rune("회의서버배포문서일정")[k/14%10]) + "안"
	}
	return fmt.Sprintf("%c%c%cword", 'a'+k%26, 'a'+k/26%26, 'a'+k/676%26)
}

func synthTranscript(meetingID string, seq int) store.Transcript {
	h := uint32(seq)*2654435761 + 12345
	var b strings.Builder
	for w := range 8 + int(h%9) {
		b.WriteString(synthWord(int(h>>8) + seq/400*37 + w*131))
		b.WriteByte(' ')
	}
	b.WriteString(". ")
	if seq%7 == 0 {
		fmt.Fprintf(&b, synthCues[seq/7%len(synthCues)], synthWord(seq/50))
	}
	return store.Transcript{
		ID: int64(seq + 1), MeetingID: meetingID, Seq: seq, SegmentID: fmt.Sprint("s", seq),
		SpeakerName: synthSpeakers[(seq/3+seq%2)%len(synthSpeakers)], Text: b.String(),
		StartMS: int64(seq) * 6000, EndMS: int64(seq)*6000 + 5000, Confidence: 1, Source: "synthetic",
	}
}

func (s *synthStore) GetMeeting(_ context.Context, _, id string) (store.Meeting, error) {
	return store.Meeting{ID: id, Title: "Load " + id, StartedAt: time.Date(2026, 1, 7, 10, 0, 0, 0, time.UTC)}, nil
}

func (s *synthStore) StartPR(_ context.Context, _, id string) (meetingpr.PR, bool, error) {
	return meetingpr.PR{ID: id, Status: "running"}, true, nil
}

func (s *synthStore) CompletePR(_ context.Context, _, id string, c meetingpr.Content) (meetingpr.PR, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.completed[id] = c
	return meetingpr.PR{ID: id, Status: "succeeded"}, nil
}

func (s *synthStore) FailPR(_ context.Context, _, id, msg string) (meetingpr.PR, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed[id] = msg
	return meetingpr.PR{ID: id, Status: "failed"}, nil
}

func (s *synthStore) CountTranscriptsUpTo(_ context.Context, _, meetingID string, _ int64) (int, error) {
	return synthTurns(meetingID), nil
}

func (s *synthStore) EachTranscript(ctx context.Context, _, meetingID string, _ int64, pageSize int, fn func(store.Transcript) error) error {
	n := synthTurns(meetingID)
	for from := 0; from < n; from += pageSize {
		page := make([]store.Transcript, 0, pageSize)
		for seq := from; seq < min(from+pageSize, n); seq++ {
			page = append(page, synthTranscript(meetingID, seq))
		}
		for _, t := range page {
			if err := fn(t); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// transcriptsUpTo is the read the handler made before it streamed: every
// row at once.
func (s *synthStore) transcriptsUpTo(meetingID string) []store.Transcript {
	n := synthTurns(meetingID)
	rows := make([]store.Transcript, 0, n)
	for seq := range n {
		rows = append(rows, synthTranscript(meetingID, seq))
	}
	return rows
}

// synthSnapshot has topics of size turns over the first 90% of the
// meeting, as L1 leaves them; the rest is segmented as a tail.
func synthSnapshot(n, size int) *mithubv1.TopicSnapshot {
	snap := &mithubv1.TopicSnapshot{}
	for s := 0; s+size <= n*9/10; s += size {
		snap.Topics = append(snap.Topics, &mithubv1.Topic{Id: fmt.Sprint("t", s), Title: fmt.Sprint("Topic ", s),
			Summary: "part of the meeting", Keywords: []string{synthWord(s)}, StartSeq: int32(s), EndSeq: int32(s + size - 1)})
	}
	return snap
}

func prTask(tb testing.TB, prID string, n, topic int) *asynq.Task {
	tb.Helper()
	b, err := proto.Marshal(&mithubv1.PRGenerateTask{TenantId: "00000000-0000-4000-a000-000000000001", PrId: prID, MeetingId: synthID(n),
		LastTranscriptId: int64(n), Snapshot: synthSnapshot(n, topic)})
	if err != nil {
		tb.Fatal(err)
	}
	return asynq.NewTask(tasks.TypePRGenerate, b)
}

// wholePath builds a PR as the handler did before it streamed: all rows,
// one Input, Extract.
func wholePath(ctx context.Context, s *synthStore, x prdoc.Extractor, t *asynq.Task) error {
	p, err := tasks.ParsePRGenerateTask(t.Payload())
	if err != nil {
		return err
	}
	m, _ := s.GetMeeting(ctx, p.GetTenantId(), p.GetMeetingId())
	doc, err := x.Extract(ctx, jobs.Input(m, s.transcriptsUpTo(p.GetMeetingId()), p.GetSnapshot()))
	if err != nil {
		return err
	}
	c, err := jobs.Content(doc)
	if err != nil {
		return err
	}
	_, err = s.CompletePR(ctx, p.GetTenantId(), p.GetPrId(), c)
	return err
}

// heapMetric is the heap's objects, live and not yet swept: what the
// process holds from the heap.
const heapMetric = "/memory/classes/heap/objects:bytes"

// heapPeak runs f while sampling the heap every millisecond and returns
// the peak growth of the heap's objects (live and not yet swept) over the
// level before f, after a GC.
func heapPeak(f func()) (peak uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: heapMetric}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if v := read(); v > base {
				peak = max(peak, v-base)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(stop)
	<-done
	if v := read(); v > base {
		peak = max(peak, v-base)
	}
	return peak
}

// runJobs runs one job per meeting size at once, streamed through the
// handler or through the whole path, with snapshot topics of topic turns,
// and returns the heap peak.
func runJobs(tb testing.TB, whole bool, topic int, sizes ...int) uint64 {
	return runJobsBudget(tb, whole, topic, 0, sizes...)
}

// runJobsBudget is runJobs with the handler's turn budget (0: default).
func runJobsBudget(tb testing.TB, whole bool, topic, budget int, sizes ...int) uint64 {
	tb.Helper()
	ctx := context.Background()
	s := newSynthStore()
	x := prdoc.NewLocal()
	h := jobs.NewPRGenerateHandler(s, x, budget, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ts := make([]*asynq.Task, len(sizes))
	for i, n := range sizes {
		ts[i] = prTask(tb, fmt.Sprintf("00000000-0000-4000-9000-%012d", i), n, topic)
	}
	errs := make([]error, len(sizes))
	peak := heapPeak(func() {
		var wg sync.WaitGroup
		for i := range ts {
			wg.Go(func() {
				if whole {
					errs[i] = wholePath(ctx, s, x, ts[i])
				} else {
					errs[i] = h.ProcessTask(ctx, ts[i])
				}
			})
		}
		wg.Wait()
	})
	for i, err := range errs {
		if err != nil {
			tb.Fatalf("job %d: %v", i, err)
		}
	}
	if len(s.completed) != len(sizes) {
		tb.Fatalf("%d PRs completed of %d (failed: %v)", len(s.completed), len(sizes), s.failed)
	}
	return peak
}

// BenchmarkPRJobMemory reports the heap peak of PR jobs built from whole
// transcripts and streamed: one meeting of 200,000 turns, and ten of
// 20,000 at once (with the default turn budget, and with one that lets two
// run at a time).
func BenchmarkPRJobMemory(b *testing.B) {
	for _, c := range []struct {
		name  string
		sizes []int
	}{
		{"1x200k", []int{200_000}},
		{"10x20k", []int{20_000, 20_000, 20_000, 20_000, 20_000, 20_000, 20_000, 20_000, 20_000, 20_000}},
	} {
		for _, whole := range []bool{true, false} {
			name := c.name + "/streamed"
			if whole {
				name = c.name + "/whole"
			}
			b.Run(name, func(b *testing.B) {
				var peak uint64
				for b.Loop() {
					peak = max(peak, runJobs(b, whole, 2000, c.sizes...))
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			})
		}
	}
	// The ten meetings under a budget of 40,000 turns: two at a time.
	b.Run("10x20k/streamed-budget40k", func(b *testing.B) {
		var peak uint64
		for b.Loop() {
			peak = max(peak, runJobsBudget(b, false, 2000, 40_000, 20_000, 20_000, 20_000, 20_000, 20_000, 20_000, 20_000, 20_000, 20_000, 20_000))
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	})
}

// A PR job's heap does not grow with its meeting: a 16,000-turn meeting
// streamed through the handler peaks under prJobHeapBound above the heap
// before it, while building it from all its rows at once (the handler's
// old path) goes past that bound, so the bound tells the two apart. The GC
// runs at 10% growth so the peak follows the live heap; a small job of
// each kind runs first so lazily built tables are not counted.
func TestPRJobMemoryIsBounded(t *testing.T) {
	const (
		turns          = 16_000
		prJobHeapBound = 10 << 20
	)
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runJobs(t, true, 50, 500)
	runJobs(t, false, 50, 500)
	whole := runJobs(t, true, 50, turns)
	streamed := runJobs(t, false, 50, turns)
	t.Logf("heap peak over %d turns: whole %.1f MB, streamed %.1f MB", turns, float64(whole)/(1<<20), float64(streamed)/(1<<20))
	if streamed >= prJobHeapBound {
		t.Errorf("streamed job peaked at %.1f MB, bound %d MB", float64(streamed)/(1<<20), prJobHeapBound>>20)
	}
	if whole <= prJobHeapBound {
		t.Errorf("whole-transcript job peaked at %.1f MB, within the %d MB bound: the test cannot tell the paths apart", float64(whole)/(1<<20), prJobHeapBound>>20)
	}
}
