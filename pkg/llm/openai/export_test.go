package openai

import (
	"context"
	"time"
)

// SetSleep replaces the wait between attempts.
func SetSleep(c *Client, sleep func(ctx context.Context, d time.Duration) error) { c.sleep = sleep }
