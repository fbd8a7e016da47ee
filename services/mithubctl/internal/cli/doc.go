// Package cli implements the mithubctl command line: the commands users
// and operators run against a MitHub deployment. Meetings: replay,
// context, ask, pr. Long-term memory: start, search, export, compress and
// the stdio MCP server. Operations: migrate, apikey, security-check.
//
// Evaluation, training and benchmark commands live in mithub-lab
// (package labcli); both binaries share package cmdline. Settings come
// from flags first, then MITHUB_* environment variables, then defaults.
package cli
