package ingest

import "errors"

var (
	// ErrSpoolFull: the spool reached its size bound and dropped a segment.
	ErrSpoolFull = errors.New("spool full")
	// ErrStopped: the writer is no longer running.
	ErrStopped = errors.New("writer stopped")
)
