package app_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"

	"github.com/mithub/mithub/pkg/lifecycle"
	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/syncbuf"
	"github.com/mithub/mithub/services/realtime-worker/internal/app"
)

// Secrets the worker must never log.
const (
	dbPassword    = "pg-S3cret-pw"
	workerAPIKey  = "mh_S3cretWorkerKey"
	livekitSecret = "lk-S3cret-value"
)

// TestStartupLogsRedactSecrets starts the worker with a database password
// (trust authentication ignores it), its own API key and a LiveKit secret,
// sends it a webhook signed with another secret (which it logs as
// rejected), stops it, and checks that no log line holds a secret.
func TestStartupLogsRedactSecrets(t *testing.T) {
	dsn, schema := storetest.NewSchema(t)
	st, err := store.Open(context.Background(), dsn, store.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := st.PutAPIKey(context.Background(), "acme", "worker", workerAPIKey); err != nil {
		t.Fatal(err)
	}
	st.Close()
	u, err := url.Parse(storetest.URLWithSchema(t, dsn, schema))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), dbPassword)
	cfg := devConfig(t, map[string]string{
		"MITHUB_ENV":                "prod",
		"MITHUB_DATABASE_URL":       u.String(),
		"MITHUB_REDIS_URL":          "redis://127.0.0.1:6379/12",
		"MITHUB_API_URL":            fakeAgentAPI(t).URL,
		"MITHUB_API_KEY":            workerAPIKey,
		"MITHUB_LIVEKIT_API_KEY":    "lk-key",
		"MITHUB_LIVEKIT_API_SECRET": livekitSecret,
		"MITHUB_LOG_LEVEL":          "debug",
	})
	logs := &syncbuf.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := app.New(ctx, cfg, logging.New(logs, cfg.LogLevel, "realtime-worker"))
	if err != nil {
		t.Fatalf("app.New: %s", lifecycle.ExitMessage("realtime-worker", err))
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()

	body := []byte(`{"event":"room_started","room":{"name":"주간 회의"}}`)
	sum := sha256.Sum256(body)
	tok, err := auth.NewAccessToken("lk-key", "not-"+livekitSecret).SetValidFor(time.Minute).
		SetSha256(base64.StdEncoding.EncodeToString(sum[:])).ToJWT()
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+a.Addr().String()+"/livekit/webhook", bytes.NewReader(body))
	req.Header.Set("Authorization", tok)
	req.Header.Set("Content-Type", "application/webhook+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("webhook with a wrong signature: status %d, want 401", resp.StatusCode)
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	out := logs.String()
	if !strings.Contains(out, "webhook rejected") {
		t.Errorf("no webhook rejected line:\n%s", out)
	}
	for _, s := range []string{dbPassword, workerAPIKey, livekitSecret, tok} {
		if strings.Contains(out, s) {
			t.Errorf("log leaks %q:\n%s", s, out)
		}
	}
}
