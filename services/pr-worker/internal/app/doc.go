// Package app is pr-worker's composition root: it builds the Asynq server,
// the task mux and the health server from the configuration, runs them and
// shuts down in order.
package app
