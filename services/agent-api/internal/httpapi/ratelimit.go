package httpapi

import (
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// RateLimit limits the requests of each API key with a token bucket.
type RateLimit struct {
	// RPS is the sustained rate per key in requests per second
	// (MITHUB_RATE_LIMIT_RPS); 0 disables the limit.
	RPS float64
	// Burst is the bucket size, the requests a key may make at once
	// (MITHUB_RATE_LIMIT_BURST); 0 disables the limit.
	Burst int
	// MaxKeys bounds the buckets kept in memory (default 100000); the least
	// recently used key's bucket is dropped first and starts full again.
	MaxKeys int
	// Now is the clock (default time.Now); tests inject one.
	Now func() time.Time
}

// Enabled reports whether the limit applies.
func (r RateLimit) Enabled() bool { return r.RPS > 0 && r.Burst > 0 }

const (
	codeRateLimited       = "rate_limited"
	defaultRateLimitKeys  = 100_000
	keyHashKey            = "mithub.keyhash"
	rateLimitRemainingHdr = "X-RateLimit-Remaining"
)

// bucket is one key's tokens as of last.
type bucket struct {
	tokens float64
	last   time.Time
}

// rateLimiter keeps one token bucket per key in a bounded LRU.
type rateLimiter struct {
	rate  float64
	burst float64
	now   func() time.Time

	// mu guards buckets.
	mu      sync.Mutex
	buckets *simplelru.LRU[string, *bucket]
}

// newRateLimiter returns nil when r is disabled.
func newRateLimiter(r RateLimit) *rateLimiter {
	if !r.Enabled() {
		return nil
	}
	if r.MaxKeys <= 0 {
		r.MaxKeys = defaultRateLimitKeys
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	// NewLRU fails only for a non-positive size, excluded above.
	lru, _ := simplelru.NewLRU[string, *bucket](r.MaxKeys, nil)
	return &rateLimiter{rate: r.RPS, burst: float64(r.Burst), now: r.Now, buckets: lru}
}

// take spends one token of key's bucket. When the bucket is empty it
// spends nothing and says how long until a token is available.
func (l *rateLimiter) take(key string) (ok bool, remaining int, wait time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.buckets.Get(key)
	if !found {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets.Add(key, b)
	}
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(l.burst, b.tokens+elapsed*l.rate)
		b.last = now
	}
	if b.tokens < 1 {
		return false, 0, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	}
	b.tokens--
	return true, int(b.tokens), 0
}

// peek reports whether key's bucket holds a token, without spending it,
// and if not how long until it does.
func (l *rateLimiter) peek(key string) (ok bool, wait time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.buckets.Peek(key)
	if !found {
		return true, 0
	}
	tokens := b.tokens
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		tokens = math.Min(l.burst, tokens+elapsed*l.rate)
	}
	if tokens < 1 {
		return false, time.Duration((1 - tokens) / l.rate * float64(time.Second))
	}
	return true, 0
}

// middleware applies the limit to the authenticated key (after the
// authenticator). Over the limit the request gets 429 with Retry-After in
// whole seconds and does nothing.
func (l *rateLimiter) middleware(c *fiber.Ctx) error {
	key, _ := c.Locals(keyHashKey).(string)
	if key == "" {
		key = "tenant:" + tenantOf(c).ID
	}
	ok, remaining, wait := l.take(key)
	if !ok {
		secs := max(1, int(math.Ceil(wait.Seconds())))
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
		c.Set(rateLimitRemainingHdr, "0")
		return &apiError{Status: fiber.StatusTooManyRequests, Code: codeRateLimited,
			Message: "rate limit of this API key exceeded; retry after " + strconv.Itoa(secs) + "s"}
	}
	c.Set(rateLimitRemainingHdr, strconv.Itoa(remaining))
	return c.Next()
}

// limit returns the rate-limit middleware, or a pass-through when the
// limit is disabled.
func (s *Server) limit(c *fiber.Ctx) error {
	if s.limiter == nil {
		return c.Next()
	}
	return s.limiter.middleware(c)
}
