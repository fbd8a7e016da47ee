package cmdline

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Main runs a binary's command line and exits with its status: run gets
// the arguments after the program name and a context cancelled by the
// first SIGINT or SIGTERM (a second one kills the process); an error is
// printed to stderr prefixed with name, and the exit code is ExitCode's.
func Main(name string, run func(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, restore default handling so a second
		// one kills the process.
		<-ctx.Done()
		stop()
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
	}
	os.Exit(ExitCode(err))
}
