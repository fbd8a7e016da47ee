package cmdline

import (
	"errors"
	"flag"
	"io"
)

// NewFlagSet returns a flag set that reports errors instead of printing
// them.
func NewFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// ParseFlags parses args and rejects positional arguments.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ErrHelp
		}
		return UsageErrorf(fs.Name(), "%v", err)
	}
	if fs.NArg() > 0 {
		return UsageErrorf(fs.Name(), "unexpected argument %q", fs.Arg(0))
	}
	return nil
}
