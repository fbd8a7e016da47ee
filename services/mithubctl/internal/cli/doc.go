// Package cli implements the mithubctl command line: subcommand dispatch,
// flag parsing with the standard flag package, and the replay, context,
// apikey and help commands.
//
// Settings come from flags first, then MITHUB_* environment variables, then
// defaults. Usage errors are *UsageError values, which ExitCode maps to 2.
package cli
