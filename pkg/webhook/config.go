package webhook

import (
	"time"

	"github.com/mithub/mithub/pkg/envconf"
)

// Config are the webhook settings agent-api and pr-worker share.
type Config struct {
	// AllowPrivate is MITHUB_WEBHOOK_ALLOW_PRIVATE (default false):
	// allow loopback and private targets (tests and single-host setups).
	AllowPrivate bool
	// Timeout is MITHUB_WEBHOOK_TIMEOUT (default 10s): one attempt.
	Timeout time.Duration
	// DisableAfter is MITHUB_WEBHOOK_DISABLE_AFTER (default 20): failed
	// attempts in a row, across deliveries, that disable a webhook (0:
	// never).
	DisableAfter int
	// SecretGrace is MITHUB_WEBHOOK_SECRET_GRACE (default 24h): how long
	// a rotated-out secret keeps signing deliveries next to the new one.
	SecretGrace time.Duration
}

// Defaults of Config.
const (
	DefaultTimeout      = 10 * time.Second
	DefaultDisableAfter = 20
	DefaultSecretGrace  = 24 * time.Hour
)

// LoadConfig reads the MITHUB_WEBHOOK_* variables.
func LoadConfig(r *envconf.Reader) Config {
	c := Config{
		AllowPrivate: r.Bool("MITHUB_WEBHOOK_ALLOW_PRIVATE", false),
		Timeout:      r.Duration("MITHUB_WEBHOOK_TIMEOUT", DefaultTimeout),
		DisableAfter: r.Int("MITHUB_WEBHOOK_DISABLE_AFTER", DefaultDisableAfter, 0, 1_000_000),
		SecretGrace:  r.Duration("MITHUB_WEBHOOK_SECRET_GRACE", DefaultSecretGrace),
	}
	if c.Timeout <= 0 {
		r.Fail("MITHUB_WEBHOOK_TIMEOUT", "must be positive")
	}
	if c.SecretGrace < 0 {
		r.Fail("MITHUB_WEBHOOK_SECRET_GRACE", "must not be negative")
	}
	return c
}
