package ask

import (
	"context"
	"log/slog"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/mithub/mithub/pkg/store"
)

// Defaults of a BankCache.
const (
	DefaultBankCacheProjects = 1024
	// DefaultBankCacheTTL bounds how long an entry is trusted even while
	// notifications flow.
	DefaultBankCacheTTL = 5 * time.Minute
)

// BankListener delivers memory-bank writes; store.Store is one.
type BankListener interface {
	ListenMemoryBank(ctx context.Context, ready func(), changed func(tenantID, project string)) error
}

// BankCache keeps projects' memory banks between asks. It trusts an entry
// only while it hears every memory-bank write: Run keeps a listener on
// the database, each write drops its project's entry, and while the
// listener is down nothing is cached and every read goes to the store. A
// write in another process is seen once its notification arrives, which
// follows its commit by about a round trip.
type BankCache struct {
	read MemoryBank
	ttl  time.Duration
	now  func() time.Time

	mu   sync.Mutex
	live bool
	// gen counts drops; a read that saw a drop while it ran is not kept.
	gen     uint64
	entries *lru.Cache[bankKey, bankEntry]
}

type bankKey struct{ tenantID, project string }

type bankEntry struct {
	text    string
	expires time.Time
}

// NewBankCache caches the banks read keeps for up to projects projects
// (DefaultBankCacheProjects when not positive).
func NewBankCache(read MemoryBank, projects int) *BankCache {
	if projects <= 0 {
		projects = DefaultBankCacheProjects
	}
	entries, _ := lru.New[bankKey, bankEntry](projects) // size is positive
	return &BankCache{read: read, ttl: DefaultBankCacheTTL, now: time.Now, entries: entries}
}

// Bank is the cached MemoryBank.
func (c *BankCache) Bank(ctx context.Context, tenantID string, m store.Meeting) (string, error) {
	key := bankKey{tenantID, m.Project()}
	c.mu.Lock()
	live, gen := c.live, c.gen
	if e, ok := c.entries.Get(key); ok && live && c.now().Before(e.expires) {
		c.mu.Unlock()
		return e.text, nil
	}
	c.mu.Unlock()
	text, err := c.read(ctx, tenantID, m)
	if err != nil || !live {
		return text, err
	}
	c.mu.Lock()
	if c.live && c.gen == gen {
		c.entries.Add(key, bankEntry{text: text, expires: c.now().Add(c.ttl)})
	}
	c.mu.Unlock()
	return text, nil
}

// Run listens for memory-bank writes until ctx is done, listening again
// after a failure (backing off from 500 ms to 30 s). Until it listens,
// the cache keeps nothing.
func (c *BankCache) Run(ctx context.Context, l BankListener, log *slog.Logger) {
	backoff := 500 * time.Millisecond
	for {
		started := time.Now()
		err := l.ListenMemoryBank(ctx, c.setLive, c.Drop)
		c.setDown()
		if ctx.Err() != nil {
			return
		}
		if time.Since(started) > time.Minute {
			backoff = 500 * time.Millisecond
		}
		log.Warn("memory-bank cache off until listening again", "err", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

func (c *BankCache) setLive() {
	c.mu.Lock()
	c.live = true
	c.gen++
	c.mu.Unlock()
}

// setDown forgets everything: writes made while nobody listens are not
// told again.
func (c *BankCache) setDown() {
	c.mu.Lock()
	c.live = false
	c.gen++
	c.entries.Purge()
	c.mu.Unlock()
}

// Drop forgets a project's bank: on each write's notification, and from
// a write in this process once committed, ahead of its notification.
func (c *BankCache) Drop(tenantID, project string) {
	c.mu.Lock()
	c.gen++
	c.entries.Remove(bankKey{tenantID, project})
	c.mu.Unlock()
}
