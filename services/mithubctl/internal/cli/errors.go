package cli

import (
	"errors"
	"flag"
	"fmt"
)

// UsageError is a bad command line: unknown command or flag, missing or
// malformed value.
type UsageError struct {
	// Command is the subcommand, or "" for the top level.
	Command string
	Msg     string
}

func (e *UsageError) Error() string {
	if e.Command == "" {
		return e.Msg + " (see 'mithubctl help')"
	}
	return fmt.Sprintf("%s: %s (see 'mithubctl help %s')", e.Command, e.Msg, e.Command)
}

func usageErrorf(command, format string, args ...any) error {
	return &UsageError{Command: command, Msg: fmt.Sprintf(format, args...)}
}

// errHelp reports that -h or --help was given.
var errHelp = flag.ErrHelp

// ExitCode is the process exit code for the error Run returned: 0 for nil,
// 2 for usage errors, 1 otherwise.
func ExitCode(err error) int {
	var ue *UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	default:
		return 1
	}
}
