package apiclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fakeClock replaces a client's clock and sleep: sleeping records the delay
// and advances the clock at once.
type fakeClock struct {
	now    time.Time
	delays []time.Duration
}

func useFakeClock(c *Client) *fakeClock {
	fc := &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	c.now = func() time.Time { return fc.now }
	c.sleep = func(ctx context.Context, d time.Duration) error {
		fc.delays = append(fc.delays, d)
		fc.now = fc.now.Add(d)
		return ctx.Err()
	}
	return fc
}

// countingServer answers request n (1-based) with statusFor(n); 2xx
// statuses get body.
func countingServer(t *testing.T, statusFor func(n int64) int, body string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status := statusFor(n.Add(1))
		if status < 300 {
			reply(status, body)(w, r)
			return
		}
		reply(status, `{"error":{"code":"unavailable","message":"try later"}}`)(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestRetryOn503ThenSuccess(t *testing.T) {
	srv, n := countingServer(t, func(n int64) int {
		if n <= 2 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}, meetingJSON)
	var events []RetryEvent
	c := New(srv.URL, "k", WithRetryNotify(func(e RetryEvent) { events = append(events, e) }))
	fc := useFakeClock(c)

	m, err := c.GetMeeting(t.Context(), "m1")
	if err != nil {
		t.Fatal(err)
	}
	if m.Title != "Standup" {
		t.Errorf("title = %q", m.Title)
	}
	if got := n.Load(); got != 3 {
		t.Errorf("requests = %d, want 3", got)
	}
	if len(fc.delays) != 2 || len(events) != 2 {
		t.Fatalf("delays = %v, events = %d, want 2 each", fc.delays, len(events))
	}
	var apiErr *APIError
	if events[0].Attempt != 1 || events[1].Attempt != 2 || !errors.As(events[0].Err, &apiErr) || apiErr.Status != 503 {
		t.Errorf("events = %+v", events)
	}
}

func TestRetryStatuses(t *testing.T) {
	tests := []struct {
		give      int
		wantTries int64
	}{
		{give: http.StatusTooManyRequests, wantTries: 3},
		{give: http.StatusBadGateway, wantTries: 3},
		{give: http.StatusServiceUnavailable, wantTries: 3},
		{give: http.StatusGatewayTimeout, wantTries: 3},
		{give: http.StatusBadRequest, wantTries: 1},
		{give: http.StatusUnauthorized, wantTries: 1},
		{give: http.StatusNotFound, wantTries: 1},
		{give: http.StatusConflict, wantTries: 1},
		{give: http.StatusInternalServerError, wantTries: 1},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.give), func(t *testing.T) {
			srv, n := countingServer(t, func(int64) int { return tt.give }, "")
			c := New(srv.URL, "k", WithRetryPolicy(RetryPolicy{MaxAttempts: 3}))
			useFakeClock(c)

			_, err := c.PostUtterances(t.Context(), "m1", []Utterance{{SegmentID: "s1"}})
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.Status != tt.give {
				t.Errorf("err = %v, want APIError %d", err, tt.give)
			}
			if got := n.Load(); got != tt.wantTries {
				t.Errorf("requests = %d, want %d", got, tt.wantTries)
			}
		})
	}
}

func TestNoRetryOn400(t *testing.T) {
	srv, n := countingServer(t, func(int64) int { return http.StatusBadRequest }, "")
	c := New(srv.URL, "k")
	fc := useFakeClock(c)

	_, err := c.Sync(t.Context(), "m1")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.Code != "unavailable" {
		t.Errorf("err = %v", err)
	}
	if n.Load() != 1 || len(fc.delays) != 0 {
		t.Errorf("requests = %d, sleeps = %d, want 1 and 0", n.Load(), len(fc.delays))
	}
}

func TestNonIdempotentCallsDoNotRetryServerErrors(t *testing.T) {
	srv, n := countingServer(t, func(int64) int { return http.StatusServiceUnavailable }, "")
	c := New(srv.URL, "k")
	useFakeClock(c)

	if _, err := c.CreateMeeting(t.Context(), CreateMeetingRequest{Title: "x"}); err == nil {
		t.Error("CreateMeeting err = nil")
	}
	if _, err := c.EndMeeting(t.Context(), "m1"); err == nil {
		t.Error("EndMeeting err = nil")
	}
	if got := n.Load(); got != 2 {
		t.Errorf("requests = %d, want 2 (one per call)", got)
	}
}

func TestMaxElapsedTimeBoundsRetries(t *testing.T) {
	srv, n := countingServer(t, func(int64) int { return http.StatusServiceUnavailable }, "")
	c := New(srv.URL, "k", WithRetryPolicy(RetryPolicy{
		InitialInterval: time.Second, MaxInterval: time.Hour, Multiplier: 2, MaxElapsedTime: 10 * time.Second,
	}))
	fc := useFakeClock(c)

	_, err := c.GetMeeting(t.Context(), "m1")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 {
		t.Fatalf("err = %v, want the last 503", err)
	}
	// Delays 1s, 2s, 4s fit in 10s; the next (8s) would end at 15s.
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}
	if len(fc.delays) != len(want) || fc.delays[0] != want[0] || fc.delays[2] != want[2] {
		t.Errorf("delays = %v, want %v", fc.delays, want)
	}
	if got := n.Load(); got != 4 {
		t.Errorf("requests = %d, want 4", got)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		reply(http.StatusOK, `{"applied":0,"cursor":-1}`)(w, r)
	}))
	t.Cleanup(srv.Close)
	c := New(srv.URL, "k")
	fc := useFakeClock(c)

	if _, err := c.Sync(t.Context(), "m1"); err != nil {
		t.Fatal(err)
	}
	if len(fc.delays) != 1 || fc.delays[0] != 3*time.Second {
		t.Errorf("delays = %v, want [3s]", fc.delays)
	}
}

func TestRetryStopsAtContextCancel(t *testing.T) {
	firstRequest := make(chan struct{})
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			close(firstRequest)
		}
		reply(http.StatusServiceUnavailable, "")(w, r)
	}))
	t.Cleanup(srv.Close)
	// Real sleeping with an hour-long backoff: only the cancel can end it.
	c := New(srv.URL, "k", WithRetryPolicy(RetryPolicy{InitialInterval: time.Hour, MaxElapsedTime: 3 * time.Hour}))
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-firstRequest
		cancel()
	}()

	_, err := c.GetMeeting(ctx, "m1")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("requests = %d, want 1", got)
	}
}

// freeAddr returns a local TCP address that nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestConnectionRefusedThenSuccess(t *testing.T) {
	tests := []struct {
		name string
		call func(ctx context.Context, c *Client) error
	}{
		{name: "get meeting", call: func(ctx context.Context, c *Client) error {
			_, err := c.GetMeeting(ctx, "m1")
			return err
		}},
		{name: "create meeting", call: func(ctx context.Context, c *Client) error {
			_, err := c.CreateMeeting(ctx, CreateMeetingRequest{Title: "x"})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := freeAddr(t)
			refused := make(chan struct{})
			var once sync.Once
			c := New("http://"+addr, "k",
				WithRetryPolicy(RetryPolicy{InitialInterval: time.Millisecond, MaxInterval: 20 * time.Millisecond, MaxElapsedTime: time.Minute}),
				WithRetryNotify(func(e RetryEvent) {
					if errors.Is(e.Err, syscall.ECONNREFUSED) {
						once.Do(func() { close(refused) })
					}
				}))

			var served atomic.Int64
			started := make(chan error, 1)
			go func() {
				<-refused
				ln, err := net.Listen("tcp", addr)
				if err != nil {
					started <- err
					return
				}
				srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					served.Add(1)
					reply(http.StatusOK, meetingJSON)(w, r)
				}))
				srv.Listener = ln
				srv.Start()
				t.Cleanup(srv.Close)
				started <- nil
			}()

			if err := tt.call(t.Context(), c); err != nil {
				t.Fatal(err)
			}
			if err := <-started; err != nil {
				t.Fatalf("listen again on %s: %v", addr, err)
			}
			if got := served.Load(); got != 1 {
				t.Errorf("requests served = %d, want 1", got)
			}
		})
	}
}

func TestConnectionResetRetriedOnlyWhenIdempotent(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		reply(http.StatusOK, `{"inserted":1,"duplicates":0,"cursor":0}`)(w, r)
	}))
	t.Cleanup(srv.Close)

	c := New(srv.URL, "k")
	useFakeClock(c)
	res, err := c.PostUtterances(t.Context(), "m1", []Utterance{{SegmentID: "s1"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Inserted != 1 || n.Load() != 2 {
		t.Errorf("inserted = %d after %d requests, want 1 after 2", res.Inserted, n.Load())
	}

	n.Store(0)
	c = New(srv.URL, "k")
	useFakeClock(c)
	c.hc = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if _, err := c.CreateMeeting(t.Context(), CreateMeetingRequest{Title: "x"}); err == nil {
		t.Error("CreateMeeting after a dropped connection = nil error, want error")
	}
	if got := n.Load(); got != 1 {
		t.Errorf("CreateMeeting requests = %d, want 1", got)
	}
}

func TestBackoff(t *testing.T) {
	p := RetryPolicy{InitialInterval: 100 * time.Millisecond, MaxInterval: time.Second, Multiplier: 2, Jitter: 0.5}.withDefaults()
	tests := []struct {
		giveN int
		giveR float64
		want  time.Duration
	}{
		{giveN: 0, giveR: 0.5, want: 100 * time.Millisecond},
		{giveN: 1, giveR: 0.5, want: 200 * time.Millisecond},
		{giveN: 3, giveR: 0.5, want: 800 * time.Millisecond},
		{giveN: 4, giveR: 0.5, want: time.Second},
		{giveN: 30, giveR: 0.5, want: time.Second},
		{giveN: 1, giveR: 0, want: 100 * time.Millisecond},
		{giveN: 1, giveR: 1, want: 300 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := p.backoff(tt.giveN, tt.giveR); got != tt.want {
			t.Errorf("backoff(%d, %v) = %v, want %v", tt.giveN, tt.giveR, got, tt.want)
		}
	}
}
