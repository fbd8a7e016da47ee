package cli

import (
	"context"
	"io"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// Program is mithubctl: the commands users and operators run.
func Program() cmdline.Program {
	return cmdline.Program{
		Name:  "mithubctl",
		Title: "command line tool for MitHub",
		Groups: []cmdline.Group{
			{Title: "Meetings (agent-api)", Commands: []cmdline.Command{
				replayCommand(), importCommand(), contextCommand(), askCommand(), prCommand()}},
			{Title: "Long-term memory", Commands: []cmdline.Command{
				startCommand(), searchCommand(), exportCommand(), compressCommand(), mcpCommand()}},
			{Title: "Operations", Commands: []cmdline.Command{
				migrateCommand(), apikeyCommand(), securityCheckCommand()}},
		},
		Env: []cmdline.EnvVar{
			{Name: cmdline.EnvAPIURL, Help: "agent-api base URL (default " + cmdline.DefaultAPIURL + ")"},
			{Name: cmdline.EnvAPIKey, Help: "API key for agent-api; its tenant owns the memory commands' conversations"},
			{Name: cmdline.EnvDatabaseURL, Help: "PostgreSQL URL for apikey, migrate and the memory commands (default " + cmdline.DefaultDatabaseURL + ")"},
			{Name: cmdline.EnvRedisURL, Help: "Redis URL of the task queue for compress and mcp --queue (default " + cmdline.DefaultRedisURL + ")"},
			{Name: envStateDir, Help: "where mcp remembers the conversation it served (default $XDG_STATE_HOME/mithub, else ~/.local/state/mithub)"},
		},
	}
}

// Run executes mithubctl's command line args (without the program name).
// Output for the user goes to stdout, progress and diagnostics to stderr;
// getenv reads the environment.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	return Program().Run(ctx, args, stdout, stderr, getenv)
}
