package health_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mithub/mithub/pkg/health"
)

func up(context.Context) error   { return nil }
func down(context.Context) error { return errors.New("connection refused") }

type readyBody struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
	Error  struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func serve(t *testing.T, checks map[string]health.Check, path string) (int, readyBody) {
	t.Helper()
	mux := http.NewServeMux()
	health.Register(mux, slog.New(slog.NewTextHandler(io.Discard, nil)), checks)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	var b readyBody
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		t.Fatalf("%s body %q: %v", path, rec.Body.String(), err)
	}
	return rec.Code, b
}

func TestHealthzIgnoresDependencies(t *testing.T) {
	code, b := serve(t, map[string]health.Check{"redis": down}, "/healthz")
	if code != http.StatusOK || b.Status != "ok" {
		t.Errorf("/healthz = %d %+v", code, b)
	}
}

func TestReadyz(t *testing.T) {
	tests := []struct {
		name       string
		give       map[string]health.Check
		wantStatus int
		wantMsg    string
	}{
		{"all up", map[string]health.Check{"postgres": up, "redis": up}, http.StatusOK, ""},
		{"redis down", map[string]health.Check{"postgres": up, "redis": down}, http.StatusServiceUnavailable, "unavailable: redis"},
		{"both down", map[string]health.Check{"redis": down, "postgres": down}, http.StatusServiceUnavailable, "unavailable: postgres, redis"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, b := serve(t, tt.give, "/readyz")
			if code != tt.wantStatus || b.Error.Message != tt.wantMsg || len(b.Checks) != len(tt.give) {
				t.Errorf("/readyz = %d %+v, want %d with message %q", code, b, tt.wantStatus, tt.wantMsg)
			}
		})
	}
}
