package cli

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
)

const (
	envAPIURL     = "MITHUB_API_URL"
	envAPIKey     = "MITHUB_API_KEY"
	defaultAPIURL = "http://127.0.0.1:8080"
	userAgent     = "mithubctl/1"
)

// apiConfig says where agent-api is and how to authenticate.
type apiConfig struct {
	// URL is the API base URL. Default $MITHUB_API_URL, else
	// http://127.0.0.1:8080.
	URL string
	// Key is the bearer key. Default $MITHUB_API_KEY; required.
	Key string
}

// register adds --api-url and --api-key to fs.
func (c *apiConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.URL, "api-url", "", "agent-api base URL (default $"+envAPIURL+" or "+defaultAPIURL+")")
	fs.StringVar(&c.Key, "api-key", "", "API key (default $"+envAPIKey+")")
}

// resolve fills unset values from the environment and defaults, and
// validates them.
func (c *apiConfig) resolve(command string, getenv func(string) string) error {
	if c.URL == "" {
		c.URL = getenv(envAPIURL)
	}
	if c.URL == "" {
		c.URL = defaultAPIURL
	}
	if c.Key == "" {
		c.Key = getenv(envAPIKey)
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageErrorf(command, "API URL %q: want http(s)://host[:port]", c.URL)
	}
	if strings.TrimSpace(c.Key) == "" {
		return usageErrorf(command, "no API key: set %s or pass --api-key", envAPIKey)
	}
	return nil
}

// client returns an API client that reports retries on stderr.
func (c apiConfig) client(stderr io.Writer) *apiclient.Client {
	return apiclient.New(c.URL, c.Key,
		apiclient.WithUserAgent(userAgent),
		apiclient.WithRetryNotify(func(ev apiclient.RetryEvent) {
			fmt.Fprintf(stderr, "%s %s: attempt %d failed: %v; retrying in %s\n",
				ev.Method, ev.Path, ev.Attempt, ev.Err, ev.Delay.Round(time.Millisecond))
		}))
}
