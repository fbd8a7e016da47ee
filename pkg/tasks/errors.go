package tasks

import "errors"

// ErrInvalidPayload means a task's payload cannot be decoded or misses a
// required field. Retrying such a task cannot help.
var ErrInvalidPayload = errors.New("invalid task payload")
