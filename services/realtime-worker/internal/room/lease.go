package room

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Leaser keeps one bot per room across replicas.
type Leaser interface {
	// Acquire takes the room's lease for owner; false when another owner
	// holds it.
	Acquire(ctx context.Context, room, owner string, ttl time.Duration) (bool, error)
	// Renew extends a lease owner holds; false when it was lost.
	Renew(ctx context.Context, room, owner string, ttl time.Duration) (bool, error)
	// Release gives the lease up if owner holds it.
	Release(ctx context.Context, room, owner string) error
}

// RedisLeaser keeps leases as Redis keys with a TTL.
type RedisLeaser struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewRedisLeaser stores leases under prefix+room.
func NewRedisLeaser(rdb redis.UniversalClient, prefix string) *RedisLeaser {
	return &RedisLeaser{rdb: rdb, prefix: prefix}
}

var (
	renewScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
return 0`)
	releaseScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1]) end
return 0`)
)

// Acquire implements Leaser.
func (l *RedisLeaser) Acquire(ctx context.Context, room, owner string, ttl time.Duration) (bool, error) {
	ok, err := l.rdb.SetNX(ctx, l.prefix+room, owner, ttl).Result()
	if err != nil || ok {
		return ok, err
	}
	// A lease this owner already holds (a repeated join) counts.
	return l.Renew(ctx, room, owner, ttl)
}

// Renew implements Leaser.
func (l *RedisLeaser) Renew(ctx context.Context, room, owner string, ttl time.Duration) (bool, error) {
	n, err := renewScript.Run(ctx, l.rdb, []string{l.prefix + room}, owner, ttl.Milliseconds()).Int()
	return n == 1, err
}

// Release implements Leaser.
func (l *RedisLeaser) Release(ctx context.Context, room, owner string) error {
	return releaseScript.Run(ctx, l.rdb, []string{l.prefix + room}, owner).Err()
}
