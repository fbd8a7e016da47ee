package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options tune the pool. Zero values keep pgxpool's defaults.
type Options struct {
	// MaxConns caps the pool (default: pgxpool's, max(4, NumCPU)).
	MaxConns int32
	// Schema, when set, is put first on the search_path of every
	// connection; tests use it to get a private namespace.
	Schema string
	// AcceptDevKeys lets Authenticate accept API keys marked dev (the dev
	// bootstrap key, see PutDevAPIKey). Only dev-mode processes set it; a
	// prod process refuses dev keys whatever the database holds.
	AcceptDevKeys bool
}

// Store is the PostgreSQL handle shared by the repositories.
type Store struct {
	pool *pgxpool.Pool
	// acceptDev is Options.AcceptDevKeys.
	acceptDev bool

	// vecMu guards vec, what EnableVectors learned about the database.
	vecMu sync.RWMutex
	vec   vectorConfig

	// ingested announces stored turns after their commit.
	ingested meetingNotifier
}

// Open connects to databaseURL and checks the connection. It does not
// migrate; call Migrate.
func Open(ctx context.Context, databaseURL string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if opts.Schema != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{opts.Schema}.Sanitize() + ", public"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("create pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	s := &Store{pool: pool, acceptDev: opts.AcceptDevKeys}
	s.ingested.pool = pool
	return s, nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.pool.Ping(ctx)
}

// Close releases every connection.
func (s *Store) Close() {
	s.pool.Close()
}

// Pool exposes the pool for benchmarks that compare against raw pgx.
func (s *Store) Pool() *pgxpool.Pool {
	return s.pool
}

// translate maps pgx errors onto the package sentinels.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	if Unavailable(err) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505": // unique_violation
			return fmt.Errorf("%w: %s", ErrConflict, pgErr.ConstraintName)
		case "23503", "23514", "22P02", "22001", "22021", "22P05": // fk, check, bad text repr, too long, bad encoding, untranslatable character (\u0000 in jsonb)
			return fmt.Errorf("%w: %s", ErrInvalid, pgErr.Message)
		}
	}
	return err
}

// Connect opens the store, retrying for up to wait while the database is
// not reachable yet (it may start after the service, in compose or after a
// host restart). Each failed attempt is logged.
func Connect(ctx context.Context, databaseURL string, opts Options, wait time.Duration, log *slog.Logger) (*Store, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for pause := 200 * time.Millisecond; ; pause = min(2*pause, 3*time.Second) {
		st, err := Open(ctx, databaseURL, opts)
		if err == nil {
			return st, nil
		}
		log.Warn("postgres not reachable yet", "err", err)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("open postgres: %w", err)
		case <-time.After(pause):
		}
	}
}
