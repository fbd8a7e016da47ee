package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Tenant owns meetings, keys and memory.
type Tenant struct {
	ID   string `db:"id" json:"id"`
	Name string `db:"name" json:"name"`
}

// APIKey describes a stored key; the key itself is never stored.
type APIKey struct {
	ID        string     `db:"id" json:"id"`
	TenantID  string     `db:"tenant_id" json:"tenant_id"`
	Name      string     `db:"name" json:"name"`
	CreatedAt time.Time  `db:"created_at" json:"created_at"`
	RevokedAt *time.Time `db:"revoked_at" json:"revoked_at"`
}

// KeyPrefix starts every generated API key.
const KeyPrefix = "mh_"

// HashKey is how keys are kept at rest: SHA-256 of the whole key. Keys carry
// 256 random bits, so a fast hash is enough.
func HashKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

// NewKey returns a fresh random API key.
func NewKey() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate key: %w", err)
	}
	return KeyPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// EnsureTenant returns the tenant with this name, creating it if needed.
func (s *Store) EnsureTenant(ctx context.Context, name string) (Tenant, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Tenant{}, fmt.Errorf("%w: tenant name is empty", ErrInvalid)
	}
	rows, err := s.pool.Query(ctx, `
		WITH ins AS (
			INSERT INTO tenants (name) VALUES ($1)
			ON CONFLICT (name) DO NOTHING
			RETURNING id, name)
		SELECT id, name FROM ins
		UNION ALL
		SELECT id, name FROM tenants WHERE name = $1
		LIMIT 1`, name)
	if err != nil {
		return Tenant{}, fmt.Errorf("ensure tenant %q: %w", name, translate(err))
	}
	t, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Tenant])
	if err != nil {
		return Tenant{}, fmt.Errorf("ensure tenant %q: %w", name, translate(err))
	}
	return t, nil
}

// CreateAPIKey makes a new key for the named tenant (created if missing)
// and returns the key in clear text; only its hash is stored.
func (s *Store) CreateAPIKey(ctx context.Context, tenantName, keyName string) (string, error) {
	key, err := NewKey()
	if err != nil {
		return "", err
	}
	if err := s.PutAPIKey(ctx, tenantName, keyName, key); err != nil {
		return "", err
	}
	return key, nil
}

// PutAPIKey stores the hash of a caller-chosen key for the named tenant
// (created if missing). Storing the same key again is a no-op; a key that
// belongs to another tenant is a conflict.
func (s *Store) PutAPIKey(ctx context.Context, tenantName, keyName, key string) error {
	return s.putAPIKey(ctx, tenantName, keyName, key, false)
}

// PutDevAPIKey is PutAPIKey for a dev bootstrap key: the key is marked dev
// (an existing row too), and only a store opened with
// Options.AcceptDevKeys authenticates it.
func (s *Store) PutDevAPIKey(ctx context.Context, tenantName, keyName, key string) error {
	return s.putAPIKey(ctx, tenantName, keyName, key, true)
}

func (s *Store) putAPIKey(ctx context.Context, tenantName, keyName, key string, dev bool) error {
	if key == "" {
		return fmt.Errorf("%w: key is empty", ErrInvalid)
	}
	t, err := s.EnsureTenant(ctx, tenantName)
	if err != nil {
		return err
	}
	var owner string
	err = s.pool.QueryRow(ctx, `
		INSERT INTO api_keys (tenant_id, key_hash, name, dev) VALUES ($1, $2, $3, $4)
		ON CONFLICT (key_hash) DO UPDATE SET dev = api_keys.dev OR EXCLUDED.dev
		RETURNING tenant_id`, t.ID, HashKey(key), keyName, dev).Scan(&owner)
	if err != nil {
		return fmt.Errorf("store api key: %w", translate(err))
	}
	if owner != t.ID {
		return fmt.Errorf("%w: key belongs to another tenant", ErrConflict)
	}
	return nil
}

// Authenticate resolves a presented key to its tenant. Unknown and revoked
// keys give ErrUnauthenticated, and so do dev keys unless the store was
// opened with Options.AcceptDevKeys.
func (s *Store) Authenticate(ctx context.Context, key string) (Tenant, error) {
	want := HashKey(key)
	var (
		t    Tenant
		hash []byte
	)
	err := s.pool.QueryRow(ctx, `
		SELECT t.id, t.name, k.key_hash
		FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
		WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (NOT k.dev OR $2)`, want, s.acceptDev).Scan(&t.ID, &t.Name, &hash)
	if err != nil {
		if translate(err) == ErrNotFound {
			return Tenant{}, ErrUnauthenticated
		}
		return Tenant{}, fmt.Errorf("authenticate: %w", translate(err))
	}
	if subtle.ConstantTimeCompare(hash, want) != 1 {
		return Tenant{}, ErrUnauthenticated
	}
	return t, nil
}

// CountDevAPIKeys returns how many unrevoked dev keys the database holds;
// a prod process warns about them at start.
func (s *Store) CountDevAPIKeys(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM api_keys WHERE dev AND revoked_at IS NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count dev api keys: %w", translate(err))
	}
	return n, nil
}

// RevokeAPIKey marks the key revoked. Revoking twice is a no-op; an unknown
// key is ErrNotFound.
func (s *Store) RevokeAPIKey(ctx context.Context, key string) error {
	tag, err := s.pool.Exec(ctx, `
		UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE key_hash = $1`, HashKey(key))
	if err != nil {
		return fmt.Errorf("revoke api key: %w", translate(err))
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}
