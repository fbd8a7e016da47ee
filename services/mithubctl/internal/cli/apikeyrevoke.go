package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// keyRevoker revokes API keys.
type keyRevoker interface {
	RevokeAPIKey(ctx context.Context, key string) error
}

// openKeyRevoker connects to PostgreSQL; tests replace it.
var openKeyRevoker = func(ctx context.Context, databaseURL string) (keyRevoker, func(), error) {
	st, err := cmdline.OpenMigratedStore(ctx, databaseURL)
	if err != nil {
		return nil, nil, err
	}
	return st, st.Close, nil
}

type revokeConfig struct {
	DatabaseURL string
	Key         string
}

func revokeFlags(c *revokeConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("apikey")
	fs.StringVar(&c.Key, "key", "", "the API key to revoke (required)")
	fs.StringVar(&c.DatabaseURL, "database-url", "", "PostgreSQL URL (default $"+cmdline.EnvDatabaseURL+" or "+cmdline.DefaultDatabaseURL+")")
	return fs
}

// runAPIKeyRevoke handles "apikey revoke --key KEY": the key stops
// working (agent-api caches keys for at most 30s).
func runAPIKeyRevoke(ctx context.Context, e *cmdline.Env, args []string) error {
	var c revokeConfig
	if err := cmdline.ParseFlags(revokeFlags(&c), args); err != nil {
		return err
	}
	c.Key = strings.TrimSpace(c.Key)
	if c.Key == "" {
		return cmdline.UsageErrorf("apikey", "revoke: --key is required")
	}
	c.DatabaseURL = cmdline.Setting(c.DatabaseURL, e.Getenv, cmdline.EnvDatabaseURL, cmdline.DefaultDatabaseURL)
	st, closeStore, err := openKeyRevoker(ctx, c.DatabaseURL)
	if err != nil {
		return fmt.Errorf("open key store: %w", err)
	}
	defer closeStore()
	if err := st.RevokeAPIKey(ctx, c.Key); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errors.New("apikey revoke: no such key")
		}
		return fmt.Errorf("revoke key: %w", err)
	}
	fmt.Fprintln(e.Stdout, "revoked")
	return nil
}
