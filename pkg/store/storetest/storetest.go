// Package storetest gives tests a migrated store in a private PostgreSQL
// schema, so test packages and parallel tests never see each other's rows.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mithub/mithub/pkg/store"
)

// DefaultURL is used when MITHUB_TEST_DATABASE_URL is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/mithub_test?sslmode=disable"

// DatabaseURL returns the test database URL, creating the database if it
// does not exist yet.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("MITHUB_TEST_DATABASE_URL")
	if dsn == "" {
		dsn = DefaultURL
	}
	ensureDatabase(t, dsn)
	return dsn
}

func ensureDatabase(t testing.TB, dsn string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("parse MITHUB_TEST_DATABASE_URL: %v", err)
	}
	name := u.Path
	if len(name) > 0 && name[0] == '/' {
		name = name[1:]
	}
	admin := *u
	admin.Path = "/postgres"
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin.String())
	if err != nil {
		t.Fatalf("connect to postgres (is it running? scripts/dev-up.sh starts it): %v", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		t.Fatalf("look up database %s: %v", name, err)
	}
	if !exists {
		// Two test binaries may race here; losing the race is fine.
		_, _ = conn.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize())
	}
}

// NewSchema creates a fresh schema and returns its name; it is dropped when
// the test ends.
func NewSchema(t testing.TB) (dsn, schema string) {
	t.Helper()
	dsn = DatabaseURL(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema = "t_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
	})
	return dsn, schema
}

// New returns a migrated store in a fresh schema.
func New(t testing.TB) *store.Store {
	t.Helper()
	dsn, schema := NewSchema(t)
	s, err := store.Open(context.Background(), dsn, store.Options{Schema: schema, MaxConns: 8})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(s.Close)
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

// URLWithSchema returns dsn with search_path set to schema, for processes
// started by tests.
func URLWithSchema(t testing.TB, dsn, schema string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("parse dsn: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
