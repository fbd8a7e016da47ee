package store

import "errors"

// Sentinel errors. The HTTP edge maps them to statuses; nothing above this
// package needs to know about pgx.
var (
	// ErrNotFound: the row does not exist or belongs to another tenant.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a uniqueness rule would be broken.
	ErrConflict = errors.New("conflict")
	// ErrInvalid: the input breaks a rule of the data model.
	ErrInvalid = errors.New("invalid input")
	// ErrUnauthenticated: the API key is unknown or revoked.
	ErrUnauthenticated = errors.New("unauthenticated")
)
