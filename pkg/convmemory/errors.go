package convmemory

import "errors"

// Sentinel errors. Input errors wrap ErrInvalid; lookups of another
// tenant's or a missing conversation give ErrNotFound.
var (
	ErrInvalid  = errors.New("invalid input")
	ErrNotFound = errors.New("not found")
	// ErrNotChat: messages are added to chat conversations only; a
	// meeting's turns come from its transcripts.
	ErrNotChat = errors.New("not a chat conversation")
)
