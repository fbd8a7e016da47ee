// Package lifecycle is the shared main of the services: a context that is
// cancelled by SIGINT or SIGTERM, a forced exit on a second signal while
// the first one drains, and a single exit with the error.
package lifecycle

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mithub/mithub/pkg/logging"
)

// Main runs run with a signal context and exits: 0 when it returns nil,
// 1 with the error on stderr otherwise, 2 on a second signal.
func Main(service string, run func(ctx context.Context) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		fmt.Fprintf(os.Stderr, "%s: second signal, exiting now\n", service)
		os.Exit(2)
	}()
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, ExitMessage(service, err))
		os.Exit(1)
	}
}

// ExitMessage is the line Main prints for run's error: the service name and
// the error with any URL password, password=... pair or bearer token
// redacted, since errors from parsers may quote a whole connection string.
func ExitMessage(service string, err error) string {
	return service + ": " + logging.Redact(err.Error())
}
