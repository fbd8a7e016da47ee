package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/testenv"
)

func TestParseRedisURL(t *testing.T) {
	tests := []struct {
		give string
		want asynq.RedisConnOpt
	}{
		{"redis://127.0.0.1:6379/3", asynq.RedisClientOpt{Addr: "127.0.0.1:6379", DB: 3}},
		{"redis://:pw@redis:6379", asynq.RedisClientOpt{Addr: "redis:6379", Password: "pw"}},
		{"redis-sentinel://:pw@s1:26379,s2:26379/2?master=mithub",
			asynq.RedisFailoverClientOpt{MasterName: "mithub", SentinelAddrs: []string{"s1:26379", "s2:26379"}, Password: "pw", SentinelPassword: "pw", DB: 2}},
		{"redis-cluster://n1:7000,n2:7001,n3:7002",
			asynq.RedisClusterClientOpt{Addrs: []string{"n1:7000", "n2:7001", "n3:7002"}}},
	}
	for _, tt := range tests {
		got, err := tasks.ParseRedisURL(tt.give)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseRedisURL(%q) = %#v, %v; want %#v", tt.give, got, err, tt.want)
		}
	}
}

func TestParseRedisURLErrorsHideThePassword(t *testing.T) {
	tests := []string{
		"redis://:s3cret@host:badport/0",
		"redis-sentinel://:s3cret@s1:26379/0",
		"redis-sentinel://:s3cret@s1:26379/x?master=m",
		"redis-cluster://:s3cret@n1:7000/1",
		"redis-cluster://:s3cret@/",
		"memcached://:s3cret@host:11211",
		"redis://:s3cret@[::1/0",
	}
	for _, give := range tests {
		_, err := tasks.ParseRedisURL(give)
		if !errors.Is(err, tasks.ErrRedisURL) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseRedisURL(%q) error %v: want ErrRedisURL without the password", give, err)
		}
	}
}

// TestRedisSentinel starts a Redis Sentinel (redis-server --sentinel) that
// watches the test Redis as master, and uses it through a redis-sentinel
// URL: the client finds the master, and asynq enqueues through it.
func TestRedisSentinel(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		testenv.Missing(t, "needs redis-server on PATH (scripts/dev-up.sh installs it)")
	}
	port := freePort(t)
	dir := t.TempDir()
	master := fmt.Sprintf("mithub-test-%d", port)
	conf := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(
		"port %d\nbind 127.0.0.1\ndir %s\nsentinel monitor %s 127.0.0.1 6379 1\n", port, dir, master)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, conf, "--sentinel")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	rdb, err := tasks.NewRedisClient(fmt.Sprintf("redis-sentinel://127.0.0.1:%d/12?master=%s", port, master))
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for err = rdb.Ping(ctx).Err(); err != nil; err = rdb.Ping(ctx).Err() {
		if time.Now().After(deadline) {
			t.Fatalf("no master through the sentinel: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	key := "mithub:test:sentinel:" + master
	if err := rdb.Set(ctx, key, "회의", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := rdb.Get(ctx, key).Result(); err != nil || got != "회의" {
		t.Fatalf("GET through the sentinel's master = %q, %v", got, err)
	}
	rdb.Del(ctx, key)

	client := asynq.NewClientFromRedisClient(rdb)
	queue := "sentinel-test-" + master
	info, err := client.EnqueueContext(ctx, asynq.NewTask("test:sentinel", []byte("x")), asynq.Queue(queue))
	if err != nil || info.Queue != queue {
		t.Fatalf("enqueue through the sentinel: %+v, %v", info, err)
	}
	insp := asynq.NewInspectorFromRedisClient(rdb)
	if err := insp.DeleteQueue(queue, true); err != nil {
		t.Errorf("delete test queue: %v", err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
