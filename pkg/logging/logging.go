// Package logging builds the slog loggers the services share.
package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// ParseLevel maps debug|info|warn|error onto a slog level.
func ParseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return 0, fmt.Errorf("log level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

// New returns a JSON logger at the given level tagged with the service.
// Records logged with a context that carries a request id (see
// WithRequestID) get a "request_id" attribute, and attribute values that
// hold URL passwords or that sit under secret-sounding keys are redacted
// (see Redact).
func New(w io.Writer, level slog.Level, service string) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: redactAttr})
	return slog.New(ContextHandler{Handler: h}).With("service", service)
}

// RequestIDKey is the attribute that carries a request's id.
const RequestIDKey = "request_id"

type requestIDCtxKey struct{}

// WithRequestID returns ctx carrying a request id for the loggers made by
// New (and any logger wrapped in ContextHandler).
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDCtxKey{}, id)
}

// RequestID returns the request id in ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDCtxKey{}).(string)
	return id
}

// ContextHandler adds the request id of the record's context as
// "request_id", unless the record already names one.
type ContextHandler struct{ slog.Handler }

// Handle implements slog.Handler.
func (h ContextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" && !hasAttr(r, RequestIDKey) {
		r = r.Clone()
		r.AddAttrs(slog.String(RequestIDKey, id))
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h ContextHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return ContextHandler{h.Handler.WithAttrs(as)}
}

// WithGroup implements slog.Handler.
func (h ContextHandler) WithGroup(name string) slog.Handler {
	return ContextHandler{h.Handler.WithGroup(name)}
}

func hasAttr(r slog.Record, key string) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == key
		return !found
	})
	return found
}
