package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

const defaultKeyName = "mithubctl"

// keyCreator creates API keys for a tenant and returns the plaintext key,
// which is shown once and stored only as a hash.
type keyCreator interface {
	CreateAPIKey(ctx context.Context, tenantName, keyName string) (key string, err error)
}

// openKeyStore connects to PostgreSQL at databaseURL and applies pending
// migrations, so a key can be made before agent-api first starts; the
// returned func releases the connection. Tests replace it.
var openKeyStore = func(ctx context.Context, databaseURL string) (keyCreator, func(), error) {
	st, err := cmdline.OpenMigratedStore(ctx, databaseURL)
	if err != nil {
		return nil, nil, err
	}
	return st, st.Close, nil
}

// apikeyConfig is the parsed apikey create command line.
type apikeyConfig struct {
	// DatabaseURL default: $MITHUB_DATABASE_URL, else cmdline.DefaultDatabaseURL.
	DatabaseURL string
	Tenant      string
	// KeyName labels the key. Default "mithubctl".
	KeyName string
}

func apikeyCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "apikey",
		Summary: "create an API key for a tenant and print it, or revoke one",
		Usage:   "mithubctl apikey create --tenant NAME [--name KEYNAME] [--database-url URL] | apikey revoke --key KEY",
		Flags: func() *flag.FlagSet {
			var c apikeyConfig
			return apikeyFlags(&c)
		},
		Run: runAPIKey,
	}
}

func apikeyFlags(c *apikeyConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("apikey")
	fs.StringVar(&c.Tenant, "tenant", "", "tenant name (required)")
	fs.StringVar(&c.KeyName, "name", defaultKeyName, "a label for the key")
	fs.StringVar(&c.DatabaseURL, "database-url", "", "PostgreSQL URL (default $"+cmdline.EnvDatabaseURL+" or "+cmdline.DefaultDatabaseURL+")")
	return fs
}

// parseAPIKey parses "create --tenant NAME ...".
func parseAPIKey(args []string, getenv func(string) string) (apikeyConfig, error) {
	var c apikeyConfig
	switch {
	case len(args) == 0:
		return c, cmdline.UsageErrorf("apikey", "missing subcommand: want 'create' or 'revoke'")
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		return c, cmdline.ErrHelp
	case args[0] != "create":
		return c, cmdline.UsageErrorf("apikey", "unknown subcommand %q: want 'create' or 'revoke'", args[0])
	}
	if err := cmdline.ParseFlags(apikeyFlags(&c), args[1:]); err != nil {
		return c, err
	}
	c.Tenant = strings.TrimSpace(c.Tenant)
	c.KeyName = strings.TrimSpace(c.KeyName)
	switch {
	case c.Tenant == "":
		return c, cmdline.UsageErrorf("apikey", "--tenant is required")
	case c.KeyName == "":
		return c, cmdline.UsageErrorf("apikey", "--name must not be empty")
	}
	c.DatabaseURL = cmdline.Setting(c.DatabaseURL, getenv, cmdline.EnvDatabaseURL, cmdline.DefaultDatabaseURL)
	return c, nil
}

// runAPIKey prints only the new key on stdout.
func runAPIKey(ctx context.Context, e *cmdline.Env, args []string) error {
	if len(args) > 0 && args[0] == "revoke" {
		return runAPIKeyRevoke(ctx, e, args[1:])
	}
	c, err := parseAPIKey(args, e.Getenv)
	if err != nil {
		return err
	}
	store, closeStore, err := openKeyStore(ctx, c.DatabaseURL)
	if err != nil {
		return fmt.Errorf("open key store: %w", err)
	}
	defer closeStore()
	key, err := store.CreateAPIKey(ctx, c.Tenant, c.KeyName)
	if err != nil {
		return fmt.Errorf("create key for tenant %q: %w", c.Tenant, err)
	}
	fmt.Fprintln(e.Stdout, key)
	return nil
}
