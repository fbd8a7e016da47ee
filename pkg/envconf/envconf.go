// Package envconf reads typed settings from environment variables and
// collects every malformed one into a single error that names the variables.
package envconf

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Reader reads variables through a lookup function (os.LookupEnv by
// default) and remembers errors.
type Reader struct {
	lookup func(string) (string, bool)
	errs   []error
}

// New reads from the process environment.
func New() *Reader { return &Reader{lookup: os.LookupEnv} }

// FromMap reads from m; tests use it.
func FromMap(m map[string]string) *Reader {
	return &Reader{lookup: func(k string) (string, bool) { v, ok := m[k]; return v, ok }}
}

func (r *Reader) get(name string) (string, bool) {
	v, ok := r.lookup(name)
	if !ok {
		return "", false
	}
	v = strings.TrimSpace(v)
	return v, v != ""
}

// Fail records a validation error for a variable.
func (r *Reader) Fail(name, format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...)))
}

// String returns the variable or def when unset or empty.
func (r *Reader) String(name, def string) string {
	if v, ok := r.get(name); ok {
		return v
	}
	return def
}

// OneOf returns the variable, which must be one of allowed, or def.
func (r *Reader) OneOf(name, def string, allowed ...string) string {
	v := r.String(name, def)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.Fail(name, "%q is not one of %s", v, strings.Join(allowed, ", "))
	return def
}

// Int returns the variable as an int within [min, max], or def.
func (r *Reader) Int(name string, def, min, max int) int {
	v, ok := r.get(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		r.Fail(name, "%q is not an integer", v)
		return def
	}
	if n < min || n > max {
		r.Fail(name, "%d is outside [%d, %d]", n, min, max)
		return def
	}
	return n
}

// Float returns the variable as a float64 within [min, max], or def.
func (r *Reader) Float(name string, def, min, max float64) float64 {
	v, ok := r.get(name)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		r.Fail(name, "%q is not a number", v)
		return def
	}
	if f < min || f > max {
		r.Fail(name, "%g is outside [%g, %g]", f, min, max)
		return def
	}
	return f
}

// Duration returns the variable as a Go duration ("1h", "500ms") that must
// be positive, or def.
func (r *Reader) Duration(name string, def time.Duration) time.Duration {
	v, ok := r.get(name)
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		r.Fail(name, "%q is not a duration like 30s or 1h", v)
		return def
	}
	if d <= 0 {
		r.Fail(name, "%s must be positive", v)
		return def
	}
	return d
}

// Bool returns the variable as a bool, or def.
func (r *Reader) Bool(name string, def bool) bool {
	v, ok := r.get(name)
	if !ok {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.Fail(name, "%q is not a boolean", v)
		return def
	}
	return b
}

// List returns a comma-separated variable split and trimmed, or def.
func (r *Reader) List(name string, def []string) []string {
	v, ok := r.get(name)
	if !ok {
		return def
	}
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Err returns every problem seen so far, joined, or nil.
func (r *Reader) Err() error {
	if len(r.errs) == 0 {
		return nil
	}
	return fmt.Errorf("configuration: %w", errors.Join(r.errs...))
}
