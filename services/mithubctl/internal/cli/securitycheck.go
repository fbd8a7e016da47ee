package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/secprobe"
)

type securityCheckConfig struct {
	APIURL, DatabaseURL                    string
	RealtimeURL, LiveKitKey, LiveKitSecret string
	RealtimeBin                            string
	PRWorkerPID, PRTurns, PRMaxMiB         int
	FloodConns                             int
	APILog                                 string
	StreamWait                             time.Duration
	Rows                                   string
}

func securityCheckFlags(c *securityCheckConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("security-check")
	fs.StringVar(&c.APIURL, "api-url", "", "prod agent-api base URL, loopback only (default $"+cmdline.EnvAPIURL+" or "+cmdline.DefaultAPIURL+")")
	fs.StringVar(&c.DatabaseURL, "database-url", "", "agent-api's PostgreSQL URL (default $"+cmdline.EnvDatabaseURL+" or "+cmdline.DefaultDatabaseURL+")")
	fs.StringVar(&c.RealtimeURL, "realtime-url", "", "realtime-worker base URL for the webhook checks (row 8; empty: not run)")
	fs.StringVar(&c.LiveKitKey, "livekit-key", "", "the LiveKit API key realtime-worker was started with")
	fs.StringVar(&c.LiveKitSecret, "livekit-secret", "", "the LiveKit API secret realtime-worker was started with")
	fs.StringVar(&c.RealtimeBin, "realtime-bin", "", "realtime-worker binary: row 1 starts it in prod with dev credentials (empty: not checked)")
	fs.IntVar(&c.PRWorkerPID, "pr-worker-pid", 0, "pr-worker's process id for row 5 (0: not run)")
	fs.IntVar(&c.PRTurns, "pr-turns", 20_000, "turns of row 5's large meeting (the small one has a quarter)")
	fs.IntVar(&c.PRMaxMiB, "pr-max-rss-mib", 256, "pr-worker peak RSS in MiB that passes row 5")
	fs.IntVar(&c.FloodConns, "flood-conns", 1500, "connections row 2 opens")
	fs.StringVar(&c.APILog, "api-log", "", "agent-api's log file, read by row 3 (optional)")
	fs.DurationVar(&c.StreamWait, "stream-wait", 45*time.Second, "how long row 4 waits for a revoked key's stream to end")
	fs.StringVar(&c.Rows, "rows", "", "comma-separated rows to run (default all)")
	return fs
}

func securityCheckCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "security-check",
		Summary: "re-run nine attacks (docs/security.md) against a running loopback deployment; print a Markdown table",
		Usage:   "mithubctl security-check [--api-url URL] [--realtime-url URL] [--pr-worker-pid PID] [--rows 1,3]",
		Flags:   func() *flag.FlagSet { return securityCheckFlags(&securityCheckConfig{}) },
		Run:     runSecurityCheck,
	}
}

// errChecksFailed: the table was printed and some rows failed.
var errChecksFailed = errors.New("security checks failed")

func runSecurityCheck(ctx context.Context, e *cmdline.Env, args []string) error {
	var c securityCheckConfig
	if err := cmdline.ParseFlags(securityCheckFlags(&c), args); err != nil {
		return err
	}
	c.APIURL = cmdline.Setting(c.APIURL, e.Getenv, cmdline.EnvAPIURL, cmdline.DefaultAPIURL)
	c.DatabaseURL = cmdline.Setting(c.DatabaseURL, e.Getenv, cmdline.EnvDatabaseURL, cmdline.DefaultDatabaseURL)
	cfg := secprobe.Config{
		APIURL: strings.TrimRight(c.APIURL, "/"), DatabaseURL: c.DatabaseURL,
		RealtimeURL: strings.TrimRight(c.RealtimeURL, "/"), LiveKitKey: c.LiveKitKey, LiveKitSecret: c.LiveKitSecret,
		PRWorkerPID: c.PRWorkerPID, PRTurns: c.PRTurns, PRMaxRSS: int64(c.PRMaxMiB) << 20,
		FloodConns: c.FloodConns, APILog: c.APILog, StreamRecheckWait: c.StreamWait,
	}
	if c.RealtimeURL != "" && (c.LiveKitKey == "" || c.LiveKitSecret == "") {
		return cmdline.UsageErrorf("security-check", "--realtime-url needs --livekit-key and --livekit-secret")
	}
	if c.RealtimeBin != "" {
		cfg.RealtimeDevCheck = secprobe.RealtimeDevStart(c.RealtimeBin, nil)
	}
	if c.Rows != "" {
		for _, f := range strings.Split(c.Rows, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > 9 {
				return cmdline.UsageErrorf("security-check", "--rows: %q is not a row from 1 to 9", f)
			}
			cfg.Rows = append(cfg.Rows, n)
		}
	}
	rs, err := secprobe.Run(ctx, cfg)
	if err != nil && len(rs) == 0 {
		return fmt.Errorf("security-check: %w", err)
	}
	fails := secprobe.Markdown(e.Stdout, rs)
	if err != nil {
		return fmt.Errorf("security-check: %w", err)
	}
	if fails > 0 {
		return fmt.Errorf("%w: %d of %d rows", errChecksFailed, fails, len(rs))
	}
	return nil
}
