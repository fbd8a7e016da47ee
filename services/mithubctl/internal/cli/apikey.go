package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
)

const (
	envDatabaseURL     = "MITHUB_DATABASE_URL"
	defaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/mithub?sslmode=disable"
	defaultKeyName     = "mithubctl"
)

// keyCreator creates API keys for a tenant and returns the plaintext key,
// which is shown once and stored only as a hash.
type keyCreator interface {
	CreateAPIKey(ctx context.Context, tenantName, keyName string) (key string, err error)
}

// openKeyStore connects to PostgreSQL at databaseURL and applies pending
// migrations, so a key can be made before agent-api first starts; the
// returned func releases the connection. Tests replace it.
var openKeyStore = func(ctx context.Context, databaseURL string) (keyCreator, func(), error) {
	st, err := openMigratedStore(ctx, databaseURL)
	if err != nil {
		return nil, nil, err
	}
	return st, st.Close, nil
}

// apikeyConfig is the parsed apikey create command line.
type apikeyConfig struct {
	// DatabaseURL default: $MITHUB_DATABASE_URL, else defaultDatabaseURL.
	DatabaseURL string
	Tenant      string
	// KeyName labels the key. Default "mithubctl".
	KeyName string
}

func apikeyCommand() command {
	return command{
		name:    "apikey",
		summary: "create an API key for a tenant and print it, or revoke one",
		usage:   "mithubctl apikey create --tenant NAME [--name KEYNAME] [--database-url URL] | apikey revoke --key KEY",
		flags: func() *flag.FlagSet {
			var c apikeyConfig
			return apikeyFlags(&c)
		},
		run: runAPIKey,
	}
}

func apikeyFlags(c *apikeyConfig) *flag.FlagSet {
	fs := newFlagSet("apikey")
	fs.StringVar(&c.Tenant, "tenant", "", "tenant name (required)")
	fs.StringVar(&c.KeyName, "name", defaultKeyName, "a label for the key")
	fs.StringVar(&c.DatabaseURL, "database-url", "", "PostgreSQL URL (default $"+envDatabaseURL+" or "+defaultDatabaseURL+")")
	return fs
}

// parseAPIKey parses "create --tenant NAME ...".
func parseAPIKey(args []string, getenv func(string) string) (apikeyConfig, error) {
	var c apikeyConfig
	switch {
	case len(args) == 0:
		return c, usageErrorf("apikey", "missing subcommand: want 'create' or 'revoke'")
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		return c, errHelp
	case args[0] != "create":
		return c, usageErrorf("apikey", "unknown subcommand %q: want 'create' or 'revoke'", args[0])
	}
	if err := parseFlags(apikeyFlags(&c), args[1:]); err != nil {
		return c, err
	}
	c.Tenant = strings.TrimSpace(c.Tenant)
	c.KeyName = strings.TrimSpace(c.KeyName)
	switch {
	case c.Tenant == "":
		return c, usageErrorf("apikey", "--tenant is required")
	case c.KeyName == "":
		return c, usageErrorf("apikey", "--name must not be empty")
	}
	if c.DatabaseURL == "" {
		c.DatabaseURL = getenv(envDatabaseURL)
	}
	if c.DatabaseURL == "" {
		c.DatabaseURL = defaultDatabaseURL
	}
	return c, nil
}

// runAPIKey prints only the new key on stdout.
func runAPIKey(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "revoke" {
		return runAPIKeyRevoke(ctx, e, args[1:])
	}
	c, err := parseAPIKey(args, e.getenv)
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
	fmt.Fprintln(e.stdout, key)
	return nil
}
