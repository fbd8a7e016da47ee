package httpapi

import (
	"testing"
	"time"
)

// fakeClock is a clock that moves only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestTokenBucket(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := newRateLimiter(RateLimit{RPS: 2, Burst: 3, Now: clk.now})
	for i := range 3 {
		if ok, rem, _ := l.take("a"); !ok || rem != 2-i {
			t.Fatalf("request %d: ok=%v remaining=%d, want allowed with %d left", i, ok, rem, 2-i)
		}
	}
	ok, _, wait := l.take("a")
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("4th request: ok=%v wait=%v, want refused with 500ms to wait", ok, wait)
	}
	// A refused request spends nothing: the wait stays the same.
	if _, _, again := l.take("a"); again != wait {
		t.Fatalf("wait after a refusal = %v, want %v", again, wait)
	}
	if ok, _, _ := l.take("b"); !ok {
		t.Fatal("key b is limited by key a's requests")
	}
	clk.advance(500 * time.Millisecond)
	if ok, _, _ := l.take("a"); !ok {
		t.Fatal("a token should be back after 1/RPS")
	}
	if ok, _, _ := l.take("a"); ok {
		t.Fatal("only one token should be back after 1/RPS")
	}
	clk.advance(time.Hour)
	for i := range 3 {
		if ok, _, _ := l.take("a"); !ok {
			t.Fatalf("after a long pause request %d refused; the bucket refills to the burst", i)
		}
	}
	if ok, _, _ := l.take("a"); ok {
		t.Fatal("the bucket must not fill beyond the burst")
	}
	// A clock that steps back does not mint tokens.
	clk.advance(-time.Minute)
	if ok, _, _ := l.take("a"); ok {
		t.Fatal("a backwards clock step gave a token")
	}
}

func TestRateLimiterBoundedMemory(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := newRateLimiter(RateLimit{RPS: 1, Burst: 1, MaxKeys: 100, Now: clk.now})
	for i := range 10_000 {
		l.take(string(rune('a'+i%26)) + time.Duration(i).String())
	}
	if n := l.buckets.Len(); n != 100 {
		t.Fatalf("%d buckets kept, want the bound 100", n)
	}
}

func TestRateLimitDisabled(t *testing.T) {
	tests := []RateLimit{{}, {RPS: 5}, {Burst: 5}}
	for _, tt := range tests {
		if l := newRateLimiter(tt); l != nil {
			t.Errorf("newRateLimiter(%+v) = limiter, want none", tt)
		}
	}
}
