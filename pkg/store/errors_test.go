package store_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mithub/mithub/pkg/store"
)

// A database that cannot be reached, or that is shutting down or starting,
// is unavailable; a bad query, a missing row or the caller's own deadline
// is not.
func TestUnavailable(t *testing.T) {
	// A port nothing listens on: a real connection failure.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, connErr := pgx.Connect(ctx, "postgres://postgres@"+addr+"/x?sslmode=disable&connect_timeout=2")
	if connErr == nil {
		t.Fatal("connected to a closed port")
	}
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"refused connection", connErr, true},
		{"wrapped", fmt.Errorf("ingest: %w", connErr), true},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"starting up", &pgconn.PgError{Code: "57P03"}, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"too many connections", &pgconn.PgError{Code: "53300"}, true},
		{"sentinel", store.ErrUnavailable, true},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"no rows", pgx.ErrNoRows, false},
		{"caller's deadline", context.DeadlineExceeded, false},
		{"cancelled", fmt.Errorf("query: %w", context.Canceled), false},
		{"other", errors.New("boom"), false},
		{"nil", nil, false},
	} {
		if got := store.Unavailable(tt.err); got != tt.want {
			t.Errorf("%s: Unavailable(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
