package httpapi

import (
	"context"
	"encoding/hex"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/mithub/mithub/pkg/store"
)

// Authenticator resolves API keys to tenants.
type Authenticator interface {
	Authenticate(ctx context.Context, key string) (store.Tenant, error)
}

// keyCacheTTL bounds how long a revoked key keeps working on a replica.
const keyCacheTTL = 30 * time.Second

// Negative cache bounds: a key the store refused is refused from memory
// for invalidKeyTTL (a key created meanwhile works after at most that),
// and at most invalidKeyEntries such keys are remembered.
const (
	invalidKeyTTL     = 5 * time.Second
	invalidKeyEntries = 10_000
)

// authenticator fronts the store with short-lived caches keyed by the
// key's hash, of valid keys and of refused ones, so the hot path does not
// query Postgres on every request, and limits each client address's failed
// authentications before they reach the store.
type authenticator struct {
	store   Authenticator
	cache   *expirable.LRU[string, store.Tenant]
	invalid *expirable.LRU[string, struct{}]
	// failures is a token bucket per client IP address spent by failed
	// authentications (nil: no limit).
	failures *rateLimiter
}

func newAuthenticator(s Authenticator, failures RateLimit) *authenticator {
	return &authenticator{
		store:    s,
		cache:    expirable.NewLRU[string, store.Tenant](10_000, nil, keyCacheTTL),
		invalid:  expirable.NewLRU[string, struct{}](invalidKeyEntries, nil, invalidKeyTTL),
		failures: newRateLimiter(failures),
	}
}

const tenantKey = "mithub.tenant"

// middleware requires "Authorization: Bearer <key>" and stores the tenant
// in the request's locals. A known valid key passes from the cache; any
// other request of an address that has used up its failed
// authentications gets 429 without reaching the store.
func (a *authenticator) middleware(c *fiber.Ctx) error {
	h := c.Get(fiber.HeaderAuthorization)
	scheme, key, ok := strings.Cut(h, " ")
	key = strings.TrimSpace(key)
	if !ok || !strings.EqualFold(scheme, "Bearer") || key == "" {
		if err := a.failed(c); err != nil {
			return err
		}
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="mithub"`)
		return &apiError{Status: fiber.StatusUnauthorized, Code: codeUnauthenticated,
			Message: "missing bearer API key: send Authorization: Bearer <key>"}
	}
	hk := hex.EncodeToString(store.HashKey(key))
	t, ok := a.cache.Get(hk)
	if !ok {
		if err := a.blocked(c); err != nil {
			return err
		}
		if _, bad := a.invalid.Get(hk); bad {
			return a.refuse(c, store.ErrUnauthenticated)
		}
		var err error
		if t, err = a.store.Authenticate(c.UserContext(), key); err != nil {
			if errors.Is(err, store.ErrUnauthenticated) {
				a.invalid.Add(hk, struct{}{})
				return a.refuse(c, err)
			}
			return err
		}
		a.cache.Add(hk, t)
	}
	c.Locals(tenantKey, t)
	c.Locals(keyHashKey, hk)
	return c.Next()
}

// refuse answers a failed authentication with 401 (429 once the address
// has no failures left).
func (a *authenticator) refuse(c *fiber.Ctx, err error) error {
	if lerr := a.failed(c); lerr != nil {
		return lerr
	}
	c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="mithub", error="invalid_token"`)
	return err
}

// blocked is a 429 when the client address has no failed authentications
// left.
func (a *authenticator) blocked(c *fiber.Ctx) error {
	if a.failures == nil {
		return nil
	}
	if ok, wait := a.failures.peek(c.IP()); !ok {
		return authLimited(wait)
	}
	return nil
}

// failed spends one of the client address's failed authentications; with
// none left it is a 429.
func (a *authenticator) failed(c *fiber.Ctx) error {
	if a.failures == nil {
		return nil
	}
	if ok, _, wait := a.failures.take(c.IP()); !ok {
		return authLimited(wait)
	}
	return nil
}

func authLimited(wait time.Duration) error {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	return &apiError{Status: fiber.StatusTooManyRequests, Code: codeRateLimited, RetryAfter: secs,
		Message: "too many failed authentications from this address; retry after " + strconv.Itoa(secs) + "s"}
}

func tenantOf(c *fiber.Ctx) store.Tenant {
	t, _ := c.Locals(tenantKey).(store.Tenant)
	return t
}
