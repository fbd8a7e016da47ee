package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// fakeKeys records the key it was asked to create.
type fakeKeys struct {
	tenant, name string
	err          error
}

func (f *fakeKeys) CreateAPIKey(_ context.Context, tenantName, keyName string) (string, error) {
	f.tenant, f.name = tenantName, keyName
	return "mh_test_key", f.err
}

// withKeyStore replaces openKeyStore for one test.
func withKeyStore(t *testing.T, open func(ctx context.Context, databaseURL string) (keyCreator, func(), error)) {
	orig := openKeyStore
	openKeyStore = open
	t.Cleanup(func() { openKeyStore = orig })
}

// The real key store: the printed key authenticates as the tenant.
func TestAPIKeyCreateAgainstPostgres(t *testing.T) {
	dsn, schema := storetest.NewSchema(t)
	url := storetest.URLWithSchema(t, dsn, schema)
	stdout, _, err := runCLI(t, []string{"apikey", "create", "--tenant", "acme", "--database-url", url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(stdout)
	st, err := store.Open(context.Background(), url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tn, err := st.Authenticate(context.Background(), key)
	if err != nil || tn.Name != "acme" {
		t.Fatalf("printed key %q authenticates as %+v, %v", key, tn, err)
	}
	out, _, err := runCLI(t, []string{"migrate", "--database-url", url}, nil)
	if err != nil || !strings.Contains(out, "up to date") {
		t.Fatalf("migrate after apikey: %q %v", out, err)
	}
}

func TestAPIKeyCreate(t *testing.T) {
	tests := []struct {
		name       string
		give       []string
		giveEnv    map[string]string
		wantURL    string
		wantTenant string
		wantName   string
	}{
		{
			name: "defaults", give: []string{"apikey", "create", "--tenant", "acme"},
			wantURL: cmdline.DefaultDatabaseURL, wantTenant: "acme", wantName: "mithubctl",
		},
		{
			name: "env", give: []string{"apikey", "create", "--tenant", " acme ", "--name", "ci"},
			giveEnv: map[string]string{cmdline.EnvDatabaseURL: "postgres://env/db"},
			wantURL: "postgres://env/db", wantTenant: "acme", wantName: "ci",
		},
		{
			name: "flag wins", give: []string{"apikey", "create", "--tenant=acme", "--database-url", "postgres://flag/db"},
			giveEnv: map[string]string{cmdline.EnvDatabaseURL: "postgres://env/db"},
			wantURL: "postgres://flag/db", wantTenant: "acme", wantName: "mithubctl",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys := &fakeKeys{}
			var gotURL string
			closed := false
			withKeyStore(t, func(_ context.Context, databaseURL string) (keyCreator, func(), error) {
				gotURL = databaseURL
				return keys, func() { closed = true }, nil
			})

			stdout, _, err := runCLI(t, tt.give, tt.giveEnv)
			if err != nil {
				t.Fatal(err)
			}
			if stdout != "mh_test_key\n" {
				t.Errorf("stdout = %q, want only the key", stdout)
			}
			if gotURL != tt.wantURL || keys.tenant != tt.wantTenant || keys.name != tt.wantName || !closed {
				t.Errorf("url %q tenant %q name %q closed %v", gotURL, keys.tenant, keys.name, closed)
			}
		})
	}
}

func TestAPIKeyCreateError(t *testing.T) {
	withKeyStore(t, func(context.Context, string) (keyCreator, func(), error) {
		return &fakeKeys{err: errors.New("tenant table missing")}, func() {}, nil
	})
	stdout, _, err := runCLI(t, []string{"apikey", "create", "--tenant", "acme"}, nil)
	if err == nil || !strings.Contains(err.Error(), `create key for tenant "acme": tenant table missing`) || stdout != "" {
		t.Errorf("err = %v, stdout = %q", err, stdout)
	}
}
