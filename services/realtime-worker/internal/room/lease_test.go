package room_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/services/realtime-worker/internal/room"
)

func TestRedisLeaser(t *testing.T) {
	u := os.Getenv("MITHUB_TEST_REDIS_URL")
	if u == "" {
		u = "redis://127.0.0.1:6379/15"
	}
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx := context.Background()
	prefix := fmt.Sprintf("test:lease:%d:", time.Now().UnixNano())
	l := room.NewRedisLeaser(rdb, prefix)
	defer rdb.Del(ctx, prefix+"r")

	steps := []struct {
		name string
		do   func() (bool, error)
		want bool
	}{
		{"a acquires", func() (bool, error) { return l.Acquire(ctx, "r", "a", time.Minute) }, true},
		{"a acquires again", func() (bool, error) { return l.Acquire(ctx, "r", "a", time.Minute) }, true},
		{"b is refused", func() (bool, error) { return l.Acquire(ctx, "r", "b", time.Minute) }, false},
		{"b cannot renew", func() (bool, error) { return l.Renew(ctx, "r", "b", time.Minute) }, false},
		{"a renews", func() (bool, error) { return l.Renew(ctx, "r", "a", time.Minute) }, true},
		{"b's release changes nothing", func() (bool, error) { return true, l.Release(ctx, "r", "b") }, true},
		{"b is still refused", func() (bool, error) { return l.Acquire(ctx, "r", "b", time.Minute) }, false},
		{"a releases", func() (bool, error) { return true, l.Release(ctx, "r", "a") }, true},
		{"b acquires", func() (bool, error) { return l.Acquire(ctx, "r", "b", time.Minute) }, true},
	}
	for _, st := range steps {
		got, err := st.do()
		if err != nil || got != st.want {
			t.Fatalf("%s: %v, %v; want %v", st.name, got, err, st.want)
		}
	}
	if ttl := rdb.PTTL(ctx, prefix+"r").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("lease TTL %s", ttl)
	}
}
