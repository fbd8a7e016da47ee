// Command mithub-lab holds MitHub's evaluation, training, benchmark and
// load tools: eval, eval-pr, train-*, bench-*, load and fake-llm. Users
// and operators run mithubctl instead.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/labcli"
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
		fmt.Fprintln(os.Stderr, "mithub-lab:", err)
	}
	os.Exit(cmdline.ExitCode(err))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return labcli.Run(ctx, args, stdout, stderr, os.Getenv)
}
