package cmdline

import (
	"errors"
	"flag"
	"fmt"
)

// UsageError is a bad command line: unknown command or flag, missing or
// malformed value.
type UsageError struct {
	// Program is the binary; Program.Run fills it in.
	Program string
	// Command is the subcommand, or "" for the top level.
	Command string
	Msg     string
}

func (e *UsageError) Error() string {
	switch {
	case e.Program == "" && e.Command == "":
		return e.Msg
	case e.Program == "":
		return e.Command + ": " + e.Msg
	case e.Command == "":
		return fmt.Sprintf("%s (see '%s help')", e.Msg, e.Program)
	}
	return fmt.Sprintf("%s: %s (see '%s help %s')", e.Command, e.Msg, e.Program, e.Command)
}

// UsageErrorf returns a *UsageError for command ("" for the top level).
func UsageErrorf(command, format string, args ...any) error {
	return &UsageError{Command: command, Msg: fmt.Sprintf(format, args...)}
}

// ErrHelp reports that -h or --help was given; Program.Run answers it
// with the command's usage.
var ErrHelp = flag.ErrHelp

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
