package httpapi

import (
	"context"
	"encoding/hex"
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

// authenticator fronts the store with a short-lived cache keyed by the
// key's hash, so the hot path does not query Postgres on every request.
type authenticator struct {
	store Authenticator
	cache *expirable.LRU[string, store.Tenant]
}

func newAuthenticator(s Authenticator) *authenticator {
	return &authenticator{store: s, cache: expirable.NewLRU[string, store.Tenant](10_000, nil, keyCacheTTL)}
}

const tenantKey = "mithub.tenant"

// middleware requires "Authorization: Bearer <key>" and stores the tenant
// in the request's locals.
func (a *authenticator) middleware(c *fiber.Ctx) error {
	h := c.Get(fiber.HeaderAuthorization)
	scheme, key, ok := strings.Cut(h, " ")
	key = strings.TrimSpace(key)
	if !ok || !strings.EqualFold(scheme, "Bearer") || key == "" {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="mithub"`)
		return &apiError{Status: fiber.StatusUnauthorized, Code: codeUnauthenticated,
			Message: "missing bearer API key: send Authorization: Bearer <key>"}
	}
	hk := hex.EncodeToString(store.HashKey(key))
	t, ok := a.cache.Get(hk)
	if !ok {
		var err error
		if t, err = a.store.Authenticate(c.UserContext(), key); err != nil {
			c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="mithub", error="invalid_token"`)
			return err
		}
		a.cache.Add(hk, t)
	}
	c.Locals(tenantKey, t)
	c.Locals(keyHashKey, hk)
	return c.Next()
}

func tenantOf(c *fiber.Ctx) store.Tenant {
	t, _ := c.Locals(tenantKey).(store.Tenant)
	return t
}
