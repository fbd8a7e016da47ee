package meetings

import (
	"errors"
	"fmt"
)

// Error categories of the meeting use cases; the HTTP edge maps each to
// a status.
var (
	// ErrNotFound: the meeting does not exist or belongs to another tenant.
	ErrNotFound = errors.New("meeting not found")
	// ErrInvalid: the input breaks a rule; the error's text says which.
	ErrInvalid = errors.New("invalid argument")
)

// invalidError is a validation error whose text is shown to the caller.
type invalidError struct{ msg string }

func (e *invalidError) Error() string        { return e.msg }
func (e *invalidError) Is(target error) bool { return target == ErrInvalid }

// invalidf returns an error in the ErrInvalid category with the message.
func invalidf(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}
