package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

// openSchema opens a second store on an existing schema.
func openSchema(t *testing.T, dsn, schema string, opts store.Options) *store.Store {
	t.Helper()
	opts.Schema = schema
	s, err := store.Open(context.Background(), dsn, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// A dev key written by a dev-mode process is refused by every store not
// opened with AcceptDevKeys, while ordinary keys keep working in both.
func TestDevKeysOnlyInDevStores(t *testing.T) {
	ctx := context.Background()
	dsn, schema := storetest.NewSchema(t)
	dev := openSchema(t, dsn, schema, store.Options{AcceptDevKeys: true})
	if _, err := dev.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	prod := openSchema(t, dsn, schema, store.Options{})

	if n, err := prod.CountDevAPIKeys(ctx); err != nil || n != 0 {
		t.Fatalf("dev keys in a fresh database: %d %v", n, err)
	}
	if err := dev.PutDevAPIKey(ctx, "dev", "dev bootstrap", "dev-key"); err != nil {
		t.Fatal(err)
	}
	if tn, err := dev.Authenticate(ctx, "dev-key"); err != nil || tn.Name != "dev" {
		t.Fatalf("dev store, dev key: %+v %v", tn, err)
	}
	if _, err := prod.Authenticate(ctx, "dev-key"); !errors.Is(err, store.ErrUnauthenticated) {
		t.Fatalf("prod store accepted the dev key: %v", err)
	}
	if n, err := prod.CountDevAPIKeys(ctx); err != nil || n != 1 {
		t.Fatalf("dev keys: %d %v", n, err)
	}
	// Writing the key again without the dev mark does not clear it.
	if err := dev.PutAPIKey(ctx, "dev", "dev bootstrap", "dev-key"); err != nil {
		t.Fatal(err)
	}
	if _, err := prod.Authenticate(ctx, "dev-key"); !errors.Is(err, store.ErrUnauthenticated) {
		t.Fatalf("prod store accepted the dev key after a plain put: %v", err)
	}

	key, err := prod.CreateAPIKey(ctx, "acme", "ci")
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*store.Store{"prod": prod, "dev": dev} {
		if tn, err := s.Authenticate(ctx, key); err != nil || tn.Name != "acme" {
			t.Fatalf("%s store, ordinary key: %+v %v", name, tn, err)
		}
	}
	// A revoked dev key is no longer counted.
	if err := dev.RevokeAPIKey(ctx, "dev-key"); err != nil {
		t.Fatal(err)
	}
	if n, err := prod.CountDevAPIKeys(ctx); err != nil || n != 0 {
		t.Fatalf("revoked dev keys counted: %d %v", n, err)
	}
}

// A database that a dev-mode process used before keys were marked holds
// "dev-key" unmarked; the migration marks it.
func TestMigrationMarksExistingDevKey(t *testing.T) {
	ctx := context.Background()
	dsn, schema := storetest.NewSchema(t)
	s := openSchema(t, dsn, schema, store.Options{})
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// Back to the schema before the dev column.
	if _, err := s.Pool().Exec(ctx, `ALTER TABLE api_keys DROP COLUMN dev;
		DELETE FROM schema_migrations WHERE name = '0004_api_key_dev.sql'`); err != nil {
		t.Fatal(err)
	}
	tn, err := s.EnsureTenant(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"dev-key", "mh_other"} {
		if _, err := s.Pool().Exec(ctx, `INSERT INTO api_keys (tenant_id, key_hash, name) VALUES ($1, $2, 'old')`, tn.ID, store.HashKey(k)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, "dev-key"); !errors.Is(err, store.ErrUnauthenticated) {
		t.Fatalf("old dev-key row accepted after the migration: %v", err)
	}
	if _, err := s.Authenticate(ctx, "mh_other"); err != nil {
		t.Fatalf("other old key: %v", err)
	}
}

// PostgreSQL refuses \u0000 in jsonb (SQLSTATE 22P05); the store reports it
// as invalid input, not as an internal error.
func TestNULInMetadataIsInvalid(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, md := range []map[string]any{{"project": "a\x00b"}, {"a\x00": "회의"}, {"n": map[string]any{"k": []any{"\x00"}}}} {
		_, err := s.CreateMeeting(ctx, tn.ID, store.NewMeeting{Title: "t", Metadata: md})
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("metadata %q: %v, want ErrInvalid", md, err)
		}
	}
}
