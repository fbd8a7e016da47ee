package prs

import (
	"errors"

	"github.com/mithub/mithub/pkg/errdefs"
	"github.com/mithub/mithub/pkg/store"
)

// Error categories of the PR use cases; the HTTP edge maps each to a
// status. Errors in the ErrConflict and ErrUnavailable categories carry a
// message for the caller.
var (
	// ErrMeetingNotFound: the meeting does not exist or belongs to another
	// tenant.
	ErrMeetingNotFound = errors.New("meeting not found")
	// ErrNotFound: the PR does not exist or belongs to another tenant.
	ErrNotFound = errors.New("PR not found")
	// ErrConflict: the PR's status does not allow the change.
	ErrConflict = errors.New("conflict")
	// ErrUnavailable: PRs are not configured, or the task queue is not
	// reachable.
	ErrUnavailable = errors.New("unavailable")
)

func conflictf(format string, args ...any) error { return errdefs.Newf(ErrConflict, format, args...) }

func unavailable(msg string) error { return errdefs.Newf(ErrUnavailable, "%s", msg) }

// meetingErr names the missing thing: the meeting.
func meetingErr(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return ErrMeetingNotFound
	}
	return err
}

// prErr names the missing thing: the PR.
func prErr(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return ErrNotFound
	}
	return err
}
