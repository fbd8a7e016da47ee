package cmdline

import (
	"flag"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
)

const (
	// EnvAPIURL names agent-api's base URL.
	EnvAPIURL = "MITHUB_API_URL"
	// EnvAPIKey names the bearer key for agent-api.
	EnvAPIKey = "MITHUB_API_KEY"
	// DefaultAPIURL is agent-api's address in dev.
	DefaultAPIURL = "http://127.0.0.1:8080"
)

// APIConfig says where agent-api is and how to authenticate.
type APIConfig struct {
	// URL is the API base URL. Default $MITHUB_API_URL, else
	// http://127.0.0.1:8080.
	URL string
	// Key is the bearer key. Default $MITHUB_API_KEY; required.
	Key string
}

// Register adds --api-url and --api-key to fs.
func (c *APIConfig) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.URL, "api-url", "", "agent-api base URL (default $"+EnvAPIURL+" or "+DefaultAPIURL+")")
	fs.StringVar(&c.Key, "api-key", "", "API key (default $"+EnvAPIKey+")")
}

// Resolve fills unset values from the environment and defaults, and
// validates them.
func (c *APIConfig) Resolve(command string, getenv func(string) string) error {
	if c.URL == "" {
		c.URL = getenv(EnvAPIURL)
	}
	if c.URL == "" {
		c.URL = DefaultAPIURL
	}
	if c.Key == "" {
		c.Key = getenv(EnvAPIKey)
	}
	if err := CheckAPIURL(command, c.URL); err != nil {
		return err
	}
	if strings.TrimSpace(c.Key) == "" {
		return UsageErrorf(command, "no API key: set %s or pass --api-key", EnvAPIKey)
	}
	return nil
}

// CheckAPIURL rejects a URL that is not http(s)://host[:port].
func CheckAPIURL(command, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return UsageErrorf(command, "API URL %q: want http(s)://host[:port]", raw)
	}
	return nil
}

// Client returns an API client that identifies as e's program and
// reports retries on e's stderr; opts come after those and may override
// them.
func (c APIConfig) Client(e *Env, opts ...apiclient.Option) *apiclient.Client {
	base := []apiclient.Option{
		apiclient.WithUserAgent(e.UserAgent()),
		apiclient.WithRetryNotify(func(ev apiclient.RetryEvent) {
			fmt.Fprintf(e.Stderr, "%s %s: attempt %d failed: %v; retrying in %s\n",
				ev.Method, ev.Path, ev.Attempt, ev.Err, ev.Delay.Round(time.Millisecond))
		}),
	}
	return apiclient.New(c.URL, c.Key, append(base, opts...)...)
}
