// Command mithubctl is the MitHub command line for users and operators:
// replay meetings into agent-api, read their context, ask and generate
// PRs, keep long-term conversation memory and serve it over MCP, migrate
// the database, manage API keys and check a deployment's security.
// Evaluation, training and benchmark tools are in mithub-lab.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mithub/mithub/services/mithubctl/internal/cli"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, restore default handling so a second
		// one kills the process.
		<-ctx.Done()
		stop()
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mithubctl:", err)
	}
	os.Exit(cmdline.ExitCode(err))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return cli.Run(ctx, args, stdout, stderr, os.Getenv)
}
