// Command pr-worker runs MitHub's Asynq server: pr:generate and memory
// jobs.
package main

import (
	"context"
	"os"

	"github.com/mithub/mithub/pkg/lifecycle"
	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/pkg/tracing"
	"github.com/mithub/mithub/services/pr-worker/internal/app"
	"github.com/mithub/mithub/services/pr-worker/internal/config"
)

func main() {
	lifecycle.Main("pr-worker", func(ctx context.Context) error { return tracing.Run(ctx, "pr-worker", run) })
}

func run(ctx context.Context) error {
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	a, err := app.New(ctx, cfg, logging.New(os.Stderr, cfg.LogLevel, "pr-worker"))
	if err != nil {
		return err
	}
	return a.Run(ctx)
}
