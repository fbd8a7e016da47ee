// Command agent-api serves MitHub's HTTP API and owns the per-meeting
// context cache.
package main

import (
	"context"
	"os"

	"github.com/mithub/mithub/pkg/lifecycle"
	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/pkg/tracing"
	"github.com/mithub/mithub/services/agent-api/internal/app"
	"github.com/mithub/mithub/services/agent-api/internal/config"
)

func main() {
	lifecycle.Main("agent-api", func(ctx context.Context) error { return tracing.Run(ctx, "agent-api", run) })
}

func run(ctx context.Context) error {
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	a, err := app.New(ctx, cfg, logging.New(os.Stderr, cfg.LogLevel, "agent-api"))
	if err != nil {
		return err
	}
	return a.Run(ctx)
}
