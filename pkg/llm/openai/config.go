package openai

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Config configures a Client. Zero values take the defaults.
type Config struct {
	// BaseURL is the API root including its version path, for example
	// https://api.openai.com/v1 or http://127.0.0.1:11434/v1. Required.
	BaseURL string
	// APIKey is sent as a bearer token when set (default: none).
	APIKey string
	// Model is the chat model used when a request names none (default:
	// none, so requests must name one).
	Model string
	// EmbedModel is the embedding model (default: none; Embed needs it).
	EmbedModel string
	// Dimension is the embedding dimension; Embed checks every vector
	// against it (default: none; Embed needs it).
	Dimension int
	// Timeout bounds one attempt (default 60s). For streams it bounds the
	// wait for the response and for each following chunk.
	Timeout time.Duration
	// MaxRetries is how often a failed attempt is retried (default 4; a
	// negative value disables retries).
	MaxRetries int
	// BackoffBase and BackoffMax shape the wait before retry n: a random
	// duration in [0, min(BackoffMax, BackoffBase·2^n)] (defaults 500ms
	// and 8s). A Retry-After header replaces it.
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// HTTPClient sends the requests (default: a client of its own with a
	// pooled transport and no overall timeout).
	HTTPClient *http.Client
	// OnUsage, when set, is called after each successful chat with the
	// model the request named and the prompt tokens the provider reported,
	// so callers can keep a per-model token correction factor. It is not
	// called when the provider reports no usage, and must be safe for
	// concurrent use.
	OnUsage func(model string, promptTokensReported int)
}

// Defaults of Config.
const (
	DefaultTimeout     = 60 * time.Second
	DefaultMaxRetries  = 4
	DefaultBackoffBase = 500 * time.Millisecond
	DefaultBackoffMax  = 8 * time.Second
)

func (c Config) withDefaults() Config {
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = DefaultMaxRetries
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.BackoffBase == 0 {
		c.BackoffBase = DefaultBackoffBase
	}
	if c.BackoffMax == 0 {
		c.BackoffMax = max(DefaultBackoffMax, c.BackoffBase)
	}
	if c.HTTPClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 32
		c.HTTPClient = &http.Client{Transport: t}
	}
	return c
}

// Validate reports the first setting that cannot work.
func (c Config) Validate() error {
	if c.BaseURL == "" {
		return errors.New("openai config: BaseURL is required")
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("openai config: BaseURL %q: want an http or https URL", redactURL(c.BaseURL))
	}
	switch {
	case c.Timeout < 0:
		return fmt.Errorf("openai config: Timeout %s is negative", c.Timeout)
	case c.BackoffBase < 0:
		return fmt.Errorf("openai config: BackoffBase %s is negative", c.BackoffBase)
	case c.BackoffMax < 0:
		return fmt.Errorf("openai config: BackoffMax %s is negative", c.BackoffMax)
	case c.BackoffMax > 0 && c.BackoffMax < c.BackoffBase:
		return fmt.Errorf("openai config: BackoffMax %s is below BackoffBase %s", c.BackoffMax, c.BackoffBase)
	case c.Dimension < 0:
		return fmt.Errorf("openai config: Dimension %d is negative", c.Dimension)
	}
	return nil
}

// String describes the configuration without the API key.
func (c Config) String() string {
	key := "none"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("openai.Config{BaseURL:%s Model:%s EmbedModel:%s Dimension:%d Timeout:%s MaxRetries:%d APIKey:%s}",
		redactURL(c.BaseURL), c.Model, c.EmbedModel, c.Dimension, c.Timeout, c.MaxRetries, key)
}

// LogValue logs the configuration without the API key.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("base_url", redactURL(c.BaseURL)),
		slog.String("model", c.Model),
		slog.String("embed_model", c.EmbedModel),
		slog.Int("dimension", c.Dimension),
		slog.Duration("timeout", c.Timeout),
		slog.Int("max_retries", c.MaxRetries),
		slog.Bool("api_key_set", c.APIKey != ""),
	)
}

// redactURL hides a password embedded in a URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
