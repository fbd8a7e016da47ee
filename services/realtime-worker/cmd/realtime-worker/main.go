// Command realtime-worker runs MitHub's LiveKit bots: transcription in,
// answers out.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/mithub/mithub/pkg/lifecycle"
	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/pkg/tracing"
	"github.com/mithub/mithub/services/realtime-worker/internal/app"
	"github.com/mithub/mithub/services/realtime-worker/internal/config"
	"github.com/mithub/mithub/services/realtime-worker/internal/room"
)

func main() {
	lifecycle.Main("realtime-worker", func(ctx context.Context) error { return tracing.Run(ctx, "realtime-worker", run) })
}

func run(ctx context.Context) error {
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	log := logging.New(os.Stderr, cfg.LogLevel, "realtime-worker")
	// Libraries' own output (the LiveKit SDK, pion, the standard log
	// package) goes through the same JSON logger.
	logging.RouteStandardLog(log.With("component", "stdlog"), slog.LevelWarn)
	room.RouteSDKLogs(log)
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	return a.Run(ctx)
}
