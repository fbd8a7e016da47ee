package tasks

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// ErrRedisURL: MITHUB_REDIS_URL is not a Redis URL this package knows.
var ErrRedisURL = errors.New("bad redis URL")

// ParseRedisURL reads the Redis connection of every service from a URL:
//
//	redis://[:password@]host:port[/db]                 one server
//	rediss://[:password@]host:port[/db]                one server over TLS
//	redis-sentinel://[:password@]host:port[,host:port...][/db]?master=NAME
//	                                                   the master that Sentinel names (failover)
//	redis-cluster://[:password@]host:port[,host:port...]
//	                                                   a Redis Cluster (no db)
//
// The password is the servers' (and, with Sentinel, the sentinels').
// Errors never quote the URL, which may hold a password.
func ParseRedisURL(raw string) (asynq.RedisConnOpt, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: not a URL", ErrRedisURL)
	}
	switch u.Scheme {
	case "redis", "rediss":
		opt, err := asynq.ParseRedisURI(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: want redis://[:password@]host:port[/db]", ErrRedisURL)
		}
		return opt, nil
	case "redis-sentinel":
		addrs, password, db, err := hostsAndDB(u)
		if err != nil {
			return nil, err
		}
		master := u.Query().Get("master")
		if master == "" {
			return nil, fmt.Errorf("%w: redis-sentinel needs ?master=NAME", ErrRedisURL)
		}
		return asynq.RedisFailoverClientOpt{MasterName: master, SentinelAddrs: addrs,
			Password: password, SentinelPassword: password, DB: db}, nil
	case "redis-cluster":
		addrs, password, db, err := hostsAndDB(u)
		if err != nil {
			return nil, err
		}
		if db != 0 {
			return nil, fmt.Errorf("%w: a Redis Cluster has only database 0", ErrRedisURL)
		}
		return asynq.RedisClusterClientOpt{Addrs: addrs, Password: password}, nil
	}
	return nil, fmt.Errorf("%w: scheme %q is not redis, rediss, redis-sentinel or redis-cluster", ErrRedisURL, u.Scheme)
}

// hostsAndDB reads host:port[,host:port...], the password and /db.
func hostsAndDB(u *url.URL) (addrs []string, password string, db int, err error) {
	for _, h := range strings.Split(u.Host, ",") {
		if h = strings.TrimSpace(h); h != "" {
			addrs = append(addrs, h)
		}
	}
	if len(addrs) == 0 {
		return nil, "", 0, fmt.Errorf("%w: no host:port", ErrRedisURL)
	}
	password, _ = u.User.Password()
	if p := strings.Trim(u.Path, "/"); p != "" {
		if db, err = strconv.Atoi(p); err != nil || db < 0 {
			return nil, "", 0, fmt.Errorf("%w: the path must be a database number", ErrRedisURL)
		}
	}
	return addrs, password, db, nil
}

// NewRedisClient connects to the Redis of ParseRedisURL's URL. The client
// serves both go-redis users and asynq (asynq.NewClientFromRedisClient,
// asynq.NewServerFromRedisClient).
func NewRedisClient(raw string) (redis.UniversalClient, error) {
	opt, err := ParseRedisURL(raw)
	if err != nil {
		return nil, err
	}
	c, ok := opt.MakeRedisClient().(redis.UniversalClient)
	if !ok {
		return nil, fmt.Errorf("%w: unsupported connection type %T", ErrRedisURL, opt)
	}
	return c, nil
}
