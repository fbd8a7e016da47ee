package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// env is what a command sees of the process.
type env struct {
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	usage   string
	// flags returns the command's flag set for help output.
	flags func() *flag.FlagSet
	run   func(ctx context.Context, e *env, args []string) error
}

// commands lists the subcommands in help order.
func commands() []command {
	return []command{replayCommand(), contextCommand(), apikeyCommand(), migrateCommand(), benchIngestCommand(), benchContextCommand(), benchAskCommand(), askCommand(), prCommand(), evalCommand(),
		startCommand(), searchCommand(), exportCommand(), compressCommand(), mcpCommand(), benchMemoryCommand(),
		evalPRCommand(), trainRetrievalCommand(), trainAnswersCommand(), trainDecisionsCommand(), benchPRCommand(), loadCommand(), fakeLLMCommand(), securityCheckCommand()}
}

// Run executes the command line args (without the program name). Output
// for the user goes to stdout, progress and diagnostics to stderr; getenv
// reads the environment.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	e := &env{stdout: stdout, stderr: stderr, getenv: getenv}
	if len(args) == 0 {
		printUsage(stderr)
		return usageErrorf("", "no command")
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return help(e, rest)
	}
	cmd, ok := lookup(name)
	if !ok {
		return usageErrorf("", "unknown command %q", name)
	}
	err := cmd.run(ctx, e, rest)
	if errors.Is(err, errHelp) {
		printCommandUsage(stdout, cmd)
		return nil
	}
	return err
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// help prints the overview or one command's usage.
func help(e *env, args []string) error {
	switch len(args) {
	case 0:
		printUsage(e.stdout)
		return nil
	case 1:
		cmd, ok := lookup(args[0])
		if !ok {
			return usageErrorf("help", "unknown command %q", args[0])
		}
		printCommandUsage(e.stdout, cmd)
		return nil
	default:
		return usageErrorf("help", "want at most one command, got %q", strings.Join(args, " "))
	}
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "mithubctl: command line tool for MitHub")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %s\n", c.usage)
	}
	fmt.Fprintln(w, "  mithubctl help [command]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "  help     show this help or a command's flags")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Environment:")
	fmt.Fprintf(w, "  %-20s agent-api base URL (default %s)\n", envAPIURL, defaultAPIURL)
	fmt.Fprintf(w, "  %-20s API key for agent-api\n", envAPIKey)
	fmt.Fprintf(w, "  %-20s PostgreSQL URL for apikey (default %s)\n", envDatabaseURL, defaultDatabaseURL)
}

func printCommandUsage(w io.Writer, c command) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n\nFlags:\n", c.usage, c.summary)
	fs := c.flags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// newFlagSet returns a flag set that reports errors instead of printing
// them.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args and rejects positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usageErrorf(fs.Name(), "%v", err)
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs.Name(), "unexpected argument %q", fs.Arg(0))
	}
	return nil
}
