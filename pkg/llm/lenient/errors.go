package lenient

import (
	"errors"
	"fmt"
	"reflect"
)

// ErrNoJSON means the text holds no JSON object or array that could be
// read or repaired.
var ErrNoJSON = errors.New("lenient: no JSON object or array found")

// TypeError reports a JSON value that could not be coerced into its Go
// destination.
type TypeError struct {
	// Path locates the value, as in topics[2].start_seq; empty for the
	// top level.
	Path string
	// Value describes the JSON value: string "abc", number 1.5, object,
	// array, bool.
	Value string
	Type  reflect.Type
}

func (e *TypeError) Error() string {
	at := e.Path
	if at == "" {
		at = "top level"
	}
	return fmt.Sprintf("lenient: cannot use %s as %v at %s", e.Value, e.Type, at)
}
