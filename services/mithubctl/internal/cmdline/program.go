package cmdline

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Env is what a command sees of the process.
type Env struct {
	// Program is the binary's name, e.g. "mithubctl".
	Program string
	// Stdin is the process's input (nil: os.Stdin).
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// UserAgent identifies the program to agent-api, e.g. "mithubctl/1".
func (e *Env) UserAgent() string { return e.Program + "/1" }

// Command is one subcommand.
type Command struct {
	Name    string
	Summary string
	Usage   string
	// Flags returns the command's flag set for help output.
	Flags func() *flag.FlagSet
	Run   func(ctx context.Context, e *Env, args []string) error
}

// Group is a titled list of commands in help order.
type Group struct {
	Title    string
	Commands []Command
}

// EnvVar is an environment variable the help output describes.
type EnvVar struct {
	Name string
	Help string
}

// Program is a binary made of subcommands.
type Program struct {
	// Name is the binary's name, used in usage errors and help.
	Name string
	// Title is the one-line description help starts with.
	Title  string
	Groups []Group
	Env    []EnvVar
}

// Run executes the command line args (without the program name). Output
// for the user goes to stdout, progress and diagnostics to stderr; getenv
// reads the environment.
func (p Program) Run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	err := p.run(ctx, args, &Env{Program: p.Name, Stdout: stdout, Stderr: stderr, Getenv: getenv})
	var ue *UsageError
	if errors.As(err, &ue) && ue.Program == "" {
		ue.Program = p.Name
	}
	return err
}

func (p Program) run(ctx context.Context, args []string, e *Env) error {
	if len(args) == 0 {
		p.printUsage(e.Stderr)
		return UsageErrorf("", "no command")
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return p.help(e, rest)
	}
	cmd, ok := p.lookup(name)
	if !ok {
		return UsageErrorf("", "unknown command %q", name)
	}
	err := cmd.Run(ctx, e, rest)
	if errors.Is(err, ErrHelp) {
		printCommandUsage(e.Stdout, cmd)
		return nil
	}
	return err
}

// Commands returns every command in help order.
func (p Program) Commands() []Command {
	var cs []Command
	for _, g := range p.Groups {
		cs = append(cs, g.Commands...)
	}
	return cs
}

func (p Program) lookup(name string) (Command, bool) {
	for _, c := range p.Commands() {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// help prints the overview or one command's usage.
func (p Program) help(e *Env, args []string) error {
	switch len(args) {
	case 0:
		p.printUsage(e.Stdout)
		return nil
	case 1:
		cmd, ok := p.lookup(args[0])
		if !ok {
			return UsageErrorf("help", "unknown command %q", args[0])
		}
		printCommandUsage(e.Stdout, cmd)
		return nil
	default:
		return UsageErrorf("help", "want at most one command, got %q", strings.Join(args, " "))
	}
}

func (p Program) printUsage(w io.Writer) {
	fmt.Fprintf(w, "%s: %s\n\nUsage:\n", p.Name, p.Title)
	for _, c := range p.Commands() {
		fmt.Fprintf(w, "  %s\n", c.Usage)
	}
	fmt.Fprintf(w, "  %s help [command]\n", p.Name)
	width := len("help")
	for _, c := range p.Commands() {
		width = max(width, len(c.Name))
	}
	fmt.Fprintln(w, "\nCommands:")
	for _, g := range p.Groups {
		fmt.Fprintf(w, "  %s:\n", g.Title)
		for _, c := range g.Commands {
			fmt.Fprintf(w, "    %-*s  %s\n", width, c.Name, c.Summary)
		}
	}
	fmt.Fprintf(w, "  %-*s    show this help or a command's flags\n", width, "help")
	if len(p.Env) == 0 {
		return
	}
	fmt.Fprintln(w, "\nEnvironment:")
	for _, v := range p.Env {
		fmt.Fprintf(w, "  %-20s %s\n", v.Name, v.Help)
	}
}

func printCommandUsage(w io.Writer, c Command) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n\nFlags:\n", c.Usage, c.Summary)
	fs := c.Flags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}
