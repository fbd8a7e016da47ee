// Package cmdline is the command-line plumbing mithubctl and mithub-lab
// share: a Program of grouped subcommands with dispatch and help, usage
// errors and their exit code, flag sets that report instead of printing,
// and the agent-api and database settings several commands take.
//
// Settings come from flags first, then MITHUB_* environment variables, then
// defaults. Usage errors are *UsageError values, which ExitCode maps to 2.
package cmdline
