package labcli

import (
	"context"
	"io"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// Program is mithub-lab: evaluation, training, benchmark and load tools.
func Program() cmdline.Program {
	return cmdline.Program{
		Name:  "mithub-lab",
		Title: "evaluation, training, benchmark and load tools for MitHub developers",
		Groups: []cmdline.Group{
			{Title: "Evaluation (QMSum)", Commands: []cmdline.Command{
				evalCommand(), evalPRCommand(), evalMemoryCommand()}},
			{Title: "Training (QMSum train, no services)", Commands: []cmdline.Command{
				trainRetrievalCommand(), trainAnswersCommand(), trainDecisionsCommand(), trainHeadingsCommand()}},
			{Title: "Benchmarks", Commands: []cmdline.Command{
				benchIngestCommand(), benchContextCommand(), benchAskCommand(), benchMemoryCommand(), benchPRCommand()}},
			{Title: "Load and faults", Commands: []cmdline.Command{
				loadCommand(), fakeLLMCommand()}},
		},
		Env: []cmdline.EnvVar{
			{Name: cmdline.EnvAPIURL, Help: "agent-api base URL (default " + cmdline.DefaultAPIURL + ")"},
			{Name: cmdline.EnvAPIKey, Help: "API key for agent-api"},
			{Name: cmdline.EnvDatabaseURL, Help: "PostgreSQL URL for bench-ingest, bench-memory and eval-memory (default " + cmdline.DefaultDatabaseURL + ")"},
			{Name: cmdline.EnvRedisURL, Help: "Redis URL for bench-memory (default " + cmdline.DefaultRedisURL + ")"},
			{Name: "MITHUB_QMSUM_DIR", Help: "QMSum data: train/, val/, test/ (default ../shared/data/qmsum)"},
		},
	}
}

// Run executes mithub-lab's command line args (without the program name).
// Output for the user goes to stdout, progress and diagnostics to stderr;
// getenv reads the environment.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	return Program().Run(ctx, args, stdout, stderr, getenv)
}
