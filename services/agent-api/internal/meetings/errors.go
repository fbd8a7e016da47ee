package meetings

import (
	"errors"

	"github.com/mithub/mithub/pkg/errdefs"
)

// Error categories of the meeting use cases; the HTTP edge maps each to
// a status.
var (
	// ErrNotFound: the meeting does not exist or belongs to another tenant.
	ErrNotFound = errors.New("meeting not found")
	// ErrInvalid: the input breaks a rule; the error's text says which.
	ErrInvalid = errors.New("invalid argument")
)

// invalidf returns an error in the ErrInvalid category with the message.
func invalidf(format string, args ...any) error { return errdefs.Newf(ErrInvalid, format, args...) }
