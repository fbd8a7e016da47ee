package ingest_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/services/realtime-worker/internal/ingest"
)

// A stand-in for agent-api's /sync that holds each call until released.
func TestPingerCoalesces(t *testing.T) {
	var (
		inFlight, maxInFlight, calls atomic.Int32
		release                      = make(chan struct{})
		entered                      = make(chan struct{}, 100)
		mu                           sync.Mutex
		fail                         = 1 // the first call fails, as while agent-api restarts
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := maxInFlight.Load()
			if n <= m || maxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		calls.Add(1)
		entered <- struct{}{}
		<-release
		mu.Lock()
		f := fail > 0
		fail--
		mu.Unlock()
		if f {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"code":"unavailable","message":"starting"}}`)
			return
		}
		io.WriteString(w, `{"applied":1,"cursor":0}`)
	}))
	defer srv.Close()
	api := apiclient.New(srv.URL, "k", apiclient.WithRetryPolicy(apiclient.NoRetry()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := ingest.NewPinger(ctx, api, slog.New(slog.NewTextHandler(io.Discard, nil)))

	p.Ping("m1")
	<-entered // one sync in flight
	for range 20 {
		p.Ping("m1") // collapse into one pending sync
	}
	close(release)
	// Call 1 fails and is retried (call 2); then the pending sync runs
	// (call 3); then nothing is pending.
	<-entered
	<-entered
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if sent, _ := p.Sent(); sent == 3 || time.Now().After(deadline) {
			break
		}
	}
	cancel()
	p.Wait()
	if maxInFlight.Load() != 1 {
		t.Errorf("%d syncs of one meeting in flight at once, want 1", maxInFlight.Load())
	}
	if c := calls.Load(); c != 3 {
		t.Errorf("%d sync calls, want 3: the failed one, its retry, and one for the 20 pings that came meanwhile", c)
	}
	if sent, failed := p.Sent(); sent != 3 || failed != 1 {
		t.Errorf("Sent() = %d, %d", sent, failed)
	}
}
