// Package testenv starts the real components the worker's integration
// tests and its benchmark need: a LiveKit server on free ports, agent-api
// built from this repository, and a TCP proxy that can cut a connection
// (PostgreSQL's) on demand. Every helper returns an error instead of
// failing a test so the benchmark program can use it too.
package testenv
