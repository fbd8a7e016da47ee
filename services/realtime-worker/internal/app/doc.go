// Package app is realtime-worker's composition root: it connects to
// PostgreSQL, Redis and agent-api from the configuration, serves the
// worker's HTTP endpoints and shuts down in order.
package app
