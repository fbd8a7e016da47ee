package labcli

import (
	"context"
	"flag"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/mithubctl/internal/bench"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

type benchIngestConfig struct {
	API         cmdline.APIConfig
	DatabaseURL string
	DataDir     string
	Opts        bench.IngestOptions
}

func benchIngestCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "bench-ingest",
		Summary: "measure POST utterances against a raw pgx CopyFrom of the same rows",
		Usage:   "mithub-lab bench-ingest [--meetings 20] [--batch 50] [--per-meeting 500] [--rounds 3] [--tenant dev] [--data-dir DIR]",
		Flags: func() *flag.FlagSet {
			var c benchIngestConfig
			return benchIngestFlags(&c)
		},
		Run: runBenchIngest,
	}
}

func benchIngestFlags(c *benchIngestConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("bench-ingest")
	fs.IntVar(&c.Opts.Meetings, "meetings", 20, "meetings written concurrently")
	fs.IntVar(&c.Opts.Batch, "batch", 50, "utterances per request and per COPY")
	fs.IntVar(&c.Opts.PerMeeting, "per-meeting", 500, "utterances per meeting")
	fs.IntVar(&c.Opts.Rounds, "rounds", 3, "alternating API/COPY rounds")
	fs.StringVar(&c.Opts.Tenant, "tenant", "dev", "tenant of the API key; owns the COPY meetings")
	fs.StringVar(&c.DataDir, "data-dir", "", "QMSum directory (default $MITHUB_QMSUM_DIR or ../shared/data/qmsum)")
	fs.StringVar(&c.DatabaseURL, "database-url", "", "PostgreSQL URL (default $"+cmdline.EnvDatabaseURL+" or "+cmdline.DefaultDatabaseURL+")")
	c.API.Register(fs)
	return fs
}

func runBenchIngest(ctx context.Context, e *cmdline.Env, args []string) error {
	var c benchIngestConfig
	if err := cmdline.ParseFlags(benchIngestFlags(&c), args); err != nil {
		return err
	}
	if err := c.API.Resolve("bench-ingest", e.Getenv); err != nil {
		return err
	}
	c.DatabaseURL = cmdline.Setting(c.DatabaseURL, e.Getenv, cmdline.EnvDatabaseURL, cmdline.DefaultDatabaseURL)
	if c.DataDir == "" {
		dir, err := qmsum.DataDir()
		if err != nil {
			return err
		}
		c.DataDir = dir
	}
	c.Opts.DataDir = c.DataDir
	st, err := store.Open(ctx, c.DatabaseURL, store.Options{MaxConns: int32(max(c.Opts.Meetings, 4))})
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = bench.Ingest(ctx, c.API.Client(e), st, c.Opts, e.Stdout)
	return err
}
