package webhook

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisSeen is a Seen shared by the replicas: SET NX with a TTL per id.
type RedisSeen struct {
	Client redis.UniversalClient
	// Prefix starts every key (e.g. mithub:rt:webhook:).
	Prefix string
}

// First implements Seen.
func (s RedisSeen) First(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	return s.Client.SetNX(ctx, s.Prefix+id, 1, ttl).Result()
}

// Forget implements Seen.
func (s RedisSeen) Forget(ctx context.Context, id string) error {
	return s.Client.Del(ctx, s.Prefix+id).Err()
}
