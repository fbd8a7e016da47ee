package search

import (
	"errors"

	"github.com/mithub/mithub/pkg/store"
)

// ErrNotFound: the meeting does not exist or belongs to another tenant.
var ErrNotFound = errors.New("meeting not found")

// notFound names the missing thing: the meeting.
func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return ErrNotFound
	}
	return err
}
