package room

import (
	"sync"
	"testing"
	"time"
)

// TestAnswerQueue: a queued answer starts only after every answer started
// before it has finished; an unqueued one starts at once; a queued one
// does not run after the session stops.
func TestAnswerQueue(t *testing.T) {
	var (
		q     answerQueue
		wg    sync.WaitGroup
		mu    sync.Mutex
		order []string
	)
	stop := make(chan struct{})
	log := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	releaseA, startedB, releaseB := make(chan struct{}), make(chan struct{}), make(chan struct{})
	q.add(&wg, false, stop, func() { log("a start"); <-releaseA; log("a end") })
	q.add(&wg, false, stop, func() { log("b start"); close(startedB); <-releaseB; log("b end") })
	ranC := make(chan struct{})
	q.add(&wg, true, stop, func() { log("c"); close(ranC) })

	// b is not queued: it starts while a is still answering.
	select {
	case <-startedB:
	case <-time.After(10 * time.Second):
		t.Fatal("an unqueued answer waited for the one before it")
	}
	close(releaseB)
	select {
	case <-ranC:
		t.Fatal("the queued answer ran while an earlier one was in progress")
	default:
	}
	close(releaseA)
	select {
	case <-ranC:
	case <-time.After(10 * time.Second):
		t.Fatal("the queued answer never ran")
	}
	wg.Wait()
	if got := order[len(order)-1]; got != "c" {
		t.Fatalf("order %q: the queued answer is not last", order)
	}

	// After a stop, a queued answer behind one in progress never runs.
	release := make(chan struct{})
	q.add(&wg, false, stop, func() { <-release })
	q.add(&wg, true, stop, func() { t.Error("a queued answer ran after the stop") })
	close(stop)
	close(release)
	wg.Wait()
}
