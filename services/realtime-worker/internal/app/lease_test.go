package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/store/storetest"
)

// A replica restarted after a kill -9 finds its room's lease still held
// under its own worker id and serves the room at once, without waiting for
// the lease to expire.
func TestRestartedReplicaTakesItsRoomBackAtOnce(t *testing.T) {
	const redisURL = "redis://127.0.0.1:6379/14"
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx := context.Background()
	prefix := fmt.Sprintf("test:rt:app:%d:", time.Now().UnixNano())
	defer rdb.Del(context.Background(), prefix+"주간 회의")
	// The lease the killed process left, for longer than the test runs.
	if err := rdb.Set(ctx, prefix+"주간 회의", "replica-7", 5*time.Minute).Err(); err != nil {
		t.Fatal(err)
	}

	dsn, schema := migratedSchema(t)
	s := start(t, devConfig(t, map[string]string{
		"MITHUB_DATABASE_URL":        storetest.URLWithSchema(t, dsn, schema),
		"MITHUB_API_URL":             fakeAgentAPI(t).URL,
		"MITHUB_REDIS_URL":           redisURL,
		"MITHUB_LIVEKIT_URL":         "ws://127.0.0.1:1",
		"MITHUB_WORKER_ROOMS":        "주간 회의",
		"MITHUB_WORKER_LEASE_PREFIX": prefix,
		"MITHUB_WORKER_ID":           "replica-7",
	}))
	eventually(t, 20*time.Second, "the room served again", func() bool { return s.app.Rooms()["주간 회의"] != "" })
	if ttl := rdb.PTTL(ctx, prefix+"주간 회의").Val(); ttl > 30*time.Second+time.Second {
		t.Errorf("lease TTL %s: not renewed by the restarted replica", ttl)
	}
}
