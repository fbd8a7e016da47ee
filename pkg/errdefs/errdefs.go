// Package errdefs defines the error kinds every layer of MitHub shares:
// the store returns them, domain packages test for them with errors.Is,
// and the HTTP edge maps them to statuses (docs/architecture.md §4).
// It imports nothing, so any package can use it.
package errdefs

import "errors"

var (
	// ErrNotFound: the thing does not exist or belongs to another tenant.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a uniqueness rule would be broken.
	ErrConflict = errors.New("conflict")
	// ErrInvalid: the input breaks a rule of the data model.
	ErrInvalid = errors.New("invalid input")
	// ErrUnauthenticated: the API key is unknown or revoked.
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrUnavailable: a backing service cannot be reached or is shutting
	// down or starting; the same request may succeed later.
	ErrUnavailable = errors.New("database unavailable")
)
