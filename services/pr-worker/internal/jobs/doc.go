// Package jobs holds pr-worker's queue contracts (task types, payloads,
// constructors, queue names) and the handlers that process them. Handlers
// return errors; the server's ErrorHandler logs them once.
package jobs
