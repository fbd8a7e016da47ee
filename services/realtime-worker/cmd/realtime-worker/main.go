// Command realtime-worker runs MitHub's LiveKit bots: transcription in,
// answers out.
package main

import (
	"context"
	"os"

	"github.com/mithub/mithub/pkg/lifecycle"
	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/services/realtime-worker/internal/app"
	"github.com/mithub/mithub/services/realtime-worker/internal/config"
)

func main() { lifecycle.Main("realtime-worker", run) }

func run(ctx context.Context) error {
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	a, err := app.New(ctx, cfg, logging.New(os.Stderr, cfg.LogLevel, "realtime-worker"))
	if err != nil {
		return err
	}
	return a.Run(ctx)
}
