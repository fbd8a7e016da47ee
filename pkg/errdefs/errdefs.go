// Package errdefs defines the error kinds every layer of MitHub shares:
// the store returns them, domain packages test for them with errors.Is,
// and the HTTP edge maps them to statuses (docs/architecture.md §4).
// It imports nothing, so any package can use it.
package errdefs

import (
	"errors"
	"fmt"
)

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

// Newf returns an error of kind whose text is the message alone: a
// validation or state error a use case words for its caller, which
// errors.Is(err, kind) still classifies.
func Newf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// kindError is an error of a kind with a message of its own.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }
