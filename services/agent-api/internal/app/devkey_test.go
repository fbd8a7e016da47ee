package app_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/syncbuf"
	"github.com/mithub/mithub/services/agent-api/internal/app"
	"github.com/mithub/mithub/services/agent-api/internal/config"
)

// startApp builds agent-api in env on the database url and returns it with
// its log; the app is shut down when the test ends.
func startApp(t *testing.T, env, url string) (*app.App, *syncbuf.Buffer) {
	t.Helper()
	cfg, err := config.FromMap(map[string]string{
		"MITHUB_ENV":          env,
		"MITHUB_DATABASE_URL": url,
		"MITHUB_REDIS_URL":    "redis://" + closedAddr(t) + "/12",
		"MITHUB_HTTP_ADDR":    "127.0.0.1:0",
	})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	a, err := app.New(context.Background(), cfg, logging.New(logs, cfg.LogLevel, "agent-api"))
	if err != nil {
		t.Fatalf("app.New(%s): %v", env, err)
	}
	t.Cleanup(func() {
		// Run with a done context shuts the app down at once.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_ = a.Run(ctx)
	})
	return a, logs
}

func listMeetings(t *testing.T, a *app.App, key string) int {
	t.Helper()
	req := httptest.NewRequest("GET", "/v1/meetings", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := a.Handler().Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// A dev-mode agent-api writes dev-key into the database; a prod agent-api
// on the same database refuses it and says so at start.
func TestProdRefusesDevKeyWrittenByDevMode(t *testing.T) {
	dsn, schema := storetest.NewSchema(t)
	url := storetest.URLWithSchema(t, dsn, schema)

	dev, _ := startApp(t, config.EnvDev, url)
	if got := listMeetings(t, dev, app.DevAPIKey); got != 200 {
		t.Fatalf("dev mode, dev-key: status %d, want 200", got)
	}
	prod, logs := startApp(t, config.EnvProd, url)
	if got := listMeetings(t, prod, app.DevAPIKey); got != 401 {
		t.Fatalf("prod, dev-key: status %d, want 401", got)
	}
	var warned bool
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"level":"WARN"`) && strings.Contains(line, "dev API keys") && strings.Contains(line, `"dev_keys":1`) {
			warned = true
		}
	}
	if !warned {
		t.Errorf("prod start did not warn about the dev key:\n%s", logs.String())
	}
	// Dev mode still works after a prod process started.
	if got := listMeetings(t, dev, app.DevAPIKey); got != 200 {
		t.Fatalf("dev mode after prod start: status %d, want 200", got)
	}
}
