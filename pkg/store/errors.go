package store

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mithub/mithub/pkg/errdefs"
)

// Sentinel errors: the kinds of package errdefs, under the names this
// package's callers test for. The HTTP edge maps them to statuses; nothing
// above this package needs to know about pgx.
var (
	ErrNotFound        = errdefs.ErrNotFound
	ErrConflict        = errdefs.ErrConflict
	ErrInvalid         = errdefs.ErrInvalid
	ErrUnauthenticated = errdefs.ErrUnauthenticated
	ErrUnavailable     = errdefs.ErrUnavailable
)

// Unavailable reports whether err means PostgreSQL could not be reached
// or refused work for now (connection failures, connection exceptions,
// shutdown, start-up, too many connections), as opposed to a bad query
// or a request's own deadline.
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, ErrUnavailable) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || // connection exception
			pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03" || // shutdown, crash, cannot connect now
			pgErr.Code == "53300" // too many connections
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err)
}
