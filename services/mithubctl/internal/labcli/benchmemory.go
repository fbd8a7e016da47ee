package labcli

import (
	"context"
	"encoding/json"
	"flag"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/services/mithubctl/internal/bench"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

type benchMemoryConfig struct {
	DatabaseURL string
	RedisURL    string
	DataDir     string
	Sizes       string
	JSON        bool
	Opts        bench.MemoryOptions
}

func benchMemoryCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "bench-memory",
		Summary: "compress 100K- and 1M-token conversations (QMSum) through the memory queue: wall time, levels, final tokens, ratio",
		Usage:   "mithub-lab bench-memory [--sizes 100000,1000000] [--window 128000] [--in-flight 20] [--llm-delay 2s] [--json]",
		Flags: func() *flag.FlagSet {
			var c benchMemoryConfig
			return benchMemoryFlags(&c)
		},
		Run: runBenchMemory,
	}
}

func benchMemoryFlags(c *benchMemoryConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("bench-memory")
	fs.StringVar(&c.Sizes, "sizes", "100000,1000000", "conversation sizes in tokens, comma separated")
	fs.IntVar(&c.Opts.Window, "window", 128_000, "model context window; the target is 10% of it")
	fs.IntVar(&c.Opts.InFlight, "in-flight", 20, "summaries in flight (memory MaxInFlight and worker concurrency)")
	fs.DurationVar(&c.Opts.LLMDelay, "llm-delay", 0, "summarise through a local OpenAI-compatible server taking this long per call (default: the local provider)")
	fs.StringVar(&c.Opts.Tenant, "tenant", "bench-memory", "tenant owning the bench conversations")
	fs.StringVar(&c.DatabaseURL, "database-url", "", "PostgreSQL URL (default $"+cmdline.EnvDatabaseURL+" or "+cmdline.DefaultDatabaseURL+")")
	fs.StringVar(&c.RedisURL, "redis-url", "", "Redis URL (default $"+cmdline.EnvRedisURL+" or "+cmdline.DefaultRedisURL+")")
	fs.StringVar(&c.DataDir, "data-dir", "", "QMSum directory (default $MITHUB_QMSUM_DIR or ../shared/data/qmsum)")
	fs.BoolVar(&c.JSON, "json", false, "print the results as JSON")
	return fs
}

func runBenchMemory(ctx context.Context, e *cmdline.Env, args []string) error {
	var c benchMemoryConfig
	if err := cmdline.ParseFlags(benchMemoryFlags(&c), args); err != nil {
		return err
	}
	for _, s := range strings.Split(c.Sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1000 {
			return cmdline.UsageErrorf("bench-memory", "--sizes: %q is not a token count of at least 1000", s)
		}
		c.Opts.Sizes = append(c.Opts.Sizes, n)
	}
	if c.Opts.InFlight < 1 || c.Opts.Window < 1000 || c.Opts.LLMDelay < 0 {
		return cmdline.UsageErrorf("bench-memory", "--in-flight must be positive, --window at least 1000, --llm-delay not negative")
	}
	if c.DataDir == "" {
		dir, err := qmsum.DataDir()
		if err != nil {
			return err
		}
		c.DataDir = dir
	}
	c.Opts.DataDir = c.DataDir
	c.DatabaseURL = cmdline.Setting(c.DatabaseURL, e.Getenv, cmdline.EnvDatabaseURL, cmdline.DefaultDatabaseURL)
	c.RedisURL = cmdline.Setting(c.RedisURL, e.Getenv, cmdline.EnvRedisURL, cmdline.DefaultRedisURL)
	st, err := cmdline.OpenMigratedStore(ctx, c.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	opt, err := asynq.ParseRedisURI(c.RedisURL)
	if err != nil {
		return cmdline.UsageErrorf("bench-memory", "--redis-url: %v", err)
	}
	rc, ok := opt.MakeRedisClient().(redis.UniversalClient)
	if !ok {
		return cmdline.UsageErrorf("bench-memory", "--redis-url: unsupported connection type")
	}
	defer rc.Close()
	c.Opts.Store, c.Opts.Redis = st, rc
	ctx, cancel := context.WithTimeout(ctx, 2*time.Hour)
	defer cancel()
	out := e.Stdout
	if c.JSON {
		out = e.Stderr
	}
	res, err := bench.Memory(ctx, c.Opts, out)
	if err != nil {
		return err
	}
	if c.JSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return nil
}
