package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/mithub/mithub/pkg/store"
)

// openMigratedStore connects to PostgreSQL and applies pending migrations.
func openMigratedStore(ctx context.Context, databaseURL string) (*store.Store, error) {
	// mithubctl holds the database URL, so it can read every tenant
	// anyway: it resolves dev keys too (mithubctl memory --api-key dev-key
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

func migrateCommand() command {
	return command{
		name:    "migrate",
		summary: "apply the database migrations",
		usage:   "mithubctl migrate [--database-url URL]",
		flags: func() *flag.FlagSet {
			var url string
			return migrateFlags(&url)
		},
		run: runMigrate,
	}
}

func migrateFlags(url *string) *flag.FlagSet {
	fs := newFlagSet("migrate")
	fs.StringVar(url, "database-url", "", "PostgreSQL URL (default $"+envDatabaseURL+" or "+defaultDatabaseURL+")")
	return fs
}

// runMigrate applies pending migrations and says which ones ran.
func runMigrate(ctx context.Context, e *env, args []string) error {
	var url string
	if err := parseFlags(migrateFlags(&url), args); err != nil {
		return err
	}
	if url == "" {
		url = e.getenv(envDatabaseURL)
	}
	if url == "" {
		url = defaultDatabaseURL
	}
	st, err := store.Open(ctx, url, store.Options{MaxConns: 2})
	if err != nil {
		return err
	}
	defer st.Close()
	ran, err := st.Migrate(ctx)
	if err != nil {
		return err
	}
	if len(ran) == 0 {
		fmt.Fprintln(e.stdout, "database is up to date")
		return nil
	}
	fmt.Fprintf(e.stdout, "applied migrations %v\n", ran)
	return nil
}
