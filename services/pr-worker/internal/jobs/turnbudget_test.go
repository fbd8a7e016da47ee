package jobs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/services/pr-worker/internal/jobs"
)

// gateExtractor is a streaming extractor that records which meetings are
// inside it and holds each until the test lets it go.
type gateExtractor struct {
	mu     sync.Mutex
	inside map[string]bool
	events []string
	gates  map[string]chan struct{}
}

func newGateExtractor() *gateExtractor {
	return &gateExtractor{inside: map[string]bool{}, gates: map[string]chan struct{}{}}
}

func (g *gateExtractor) gate(meetingID string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gates[meetingID] == nil {
		g.gates[meetingID] = make(chan struct{})
	}
	return g.gates[meetingID]
}

func (g *gateExtractor) Extract(context.Context, prdoc.Input) (prdoc.Document, error) {
	return prdoc.Document{}, errors.New("not streamed")
}

func (g *gateExtractor) ExtractStream(_ context.Context, in prdoc.StreamInput) (prdoc.Document, error) {
	g.mu.Lock()
	g.inside[in.MeetingID] = true
	g.events = append(g.events, "in "+in.MeetingID)
	g.mu.Unlock()
	<-g.gate(in.MeetingID)
	g.mu.Lock()
	delete(g.inside, in.MeetingID)
	g.events = append(g.events, "out "+in.MeetingID)
	g.mu.Unlock()
	return prdoc.Document{Title: in.MeetingID, Provider: "test"}, nil
}

func (g *gateExtractor) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.inside)
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// With a budget of 100 turns, two 60-turn meetings are built one after
// the other (the second waits, and says so, until the first is done),
// while three 30-turn meetings are built at once; a meeting larger than
// the whole budget still runs, alone.
func TestPRJobsShareTheTurnBudget(t *testing.T) {
	ctx := context.Background()
	g := newGateExtractor()
	var logs syncBuffer
	h := jobs.NewPRGenerateHandler(newSynthStore(), g, 100, slog.New(slog.NewTextHandler(&logs, nil)))
	run := func(i, n int) chan error {
		done := make(chan error, 1)
		go func() { done <- h.ProcessTask(ctx, prTask(t, synthPR(i), n, 50)) }()
		return done
	}
	big1 := run(1, 60)
	waitFor(t, "the first 60-turn job inside", func() bool { return g.count() == 1 })
	big2 := run(2, 61)
	waitFor(t, "the second 60-turn job waiting", func() bool { return strings.Contains(logs.String(), "waits for the turn budget") })
	if g.count() != 1 {
		t.Fatalf("%d jobs inside, want the second to wait", g.count())
	}
	close(g.gate(synthID(60)))
	if err := <-big1; err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second job inside", func() bool { return g.count() == 1 })
	close(g.gate(synthID(61)))
	if err := <-big2; err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	order := strings.Join(g.events, ", ")
	g.mu.Unlock()
	if want := "in " + synthID(60) + ", out " + synthID(60) + ", in " + synthID(61) + ", out " + synthID(61); order != want {
		t.Errorf("events %s, want %s", order, want)
	}

	var small []chan error
	for i, n := range []int{30, 31, 32} {
		small = append(small, run(10+i, n))
	}
	waitFor(t, "three 30-turn jobs inside at once", func() bool { return g.count() == 3 })
	for _, n := range []int{30, 31, 32} {
		close(g.gate(synthID(n)))
	}
	for _, d := range small {
		if err := <-d; err != nil {
			t.Fatal(err)
		}
	}

	huge := run(20, 1000)
	waitFor(t, "a job larger than the budget inside", func() bool { return g.count() == 1 })
	close(g.gate(synthID(1000)))
	if err := <-huge; err != nil {
		t.Fatal(err)
	}
}

// A job waiting for the budget gives up when its context ends.
func TestTurnBudgetWaitEndsWithContext(t *testing.T) {
	b := jobs.NewTurnBudget(10)
	release, err := b.Acquire(context.Background(), 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan int64, 1)
	done := make(chan error, 1)
	go func() {
		_, err := b.Acquire(ctx, 5, func(w int64) { waited <- w })
		done <- err
	}()
	if w := <-waited; w != 5 {
		t.Errorf("waiting weight %d, want 5", w)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Acquire after cancel = %v, want context.Canceled", err)
	}
	release()
	r2, err := b.Acquire(context.Background(), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2()
}

func synthPR(i int) string { return fmt.Sprintf("00000000-0000-4000-9000-%012d", i) }
