package cmdline

import (
	"context"

	"github.com/mithub/mithub/pkg/store"
)

const (
	// EnvDatabaseURL names the PostgreSQL URL.
	EnvDatabaseURL = "MITHUB_DATABASE_URL"
	// DefaultDatabaseURL is the dev database.
	DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/mithub?sslmode=disable"
	// EnvRedisURL names the Redis URL of the task queue.
	EnvRedisURL = "MITHUB_REDIS_URL"
	// DefaultRedisURL is the dev Redis.
	DefaultRedisURL = "redis://127.0.0.1:6379/0"
)

// OpenMigratedStore connects to PostgreSQL and applies pending migrations.
func OpenMigratedStore(ctx context.Context, databaseURL string) (*store.Store, error) {
	// mithubctl holds the database URL, so it can read every tenant
	// anyway: it resolves dev keys too (mithubctl search --api-key dev-key
	// against a dev database). Network-facing services refuse them in prod.
	st, err := store.Open(ctx, databaseURL, store.Options{MaxConns: 2, AcceptDevKeys: true})
	if err != nil {
		return nil, err
	}
	if _, err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// Setting resolves a setting given by flag, else by the environment
// variable env, else def.
func Setting(flag string, getenv func(string) string, env, def string) string {
	if flag != "" {
		return flag
	}
	if v := getenv(env); v != "" {
		return v
	}
	return def
}
