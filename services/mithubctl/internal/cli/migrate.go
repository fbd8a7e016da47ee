package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

func migrateCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "migrate",
		Summary: "apply the database migrations",
		Usage:   "mithubctl migrate [--database-url URL]",
		Flags: func() *flag.FlagSet {
			var url string
			return migrateFlags(&url)
		},
		Run: runMigrate,
	}
}

func migrateFlags(url *string) *flag.FlagSet {
	fs := cmdline.NewFlagSet("migrate")
	fs.StringVar(url, "database-url", "", "PostgreSQL URL (default $"+cmdline.EnvDatabaseURL+" or "+cmdline.DefaultDatabaseURL+")")
	return fs
}

// runMigrate applies pending migrations and says which ones ran.
func runMigrate(ctx context.Context, e *cmdline.Env, args []string) error {
	var url string
	if err := cmdline.ParseFlags(migrateFlags(&url), args); err != nil {
		return err
	}
	url = cmdline.Setting(url, e.Getenv, cmdline.EnvDatabaseURL, cmdline.DefaultDatabaseURL)
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
		fmt.Fprintln(e.Stdout, "database is up to date")
		return nil
	}
	fmt.Fprintf(e.Stdout, "applied migrations %v\n", ran)
	return nil
}
