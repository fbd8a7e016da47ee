package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/health"
	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/services/agent-api/internal/httpapi"
)

// logBuffer collects log lines written from several goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the JSON log records written since offset and the new
// offset.
func (b *logBuffer) since(t *testing.T, offset int) ([]map[string]any, int) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(b.buf.Bytes()[offset:]), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out, b.buf.Len()
}

func TestRequestIDInResponseAndEveryLogLine(t *testing.T) {
	logs := &logBuffer{}
	log := logging.New(logs, slog.LevelDebug, "agent-api")
	a := newSecApp(t, log, func(d *httpapi.Deps) {
		d.Ready = map[string]health.Check{
			"postgres": d.Store.Ping,
			"redis":    func(context.Context) error { return errors.New("connection refused") },
		}
	})
	key := a.key("acme")
	tests := []struct {
		name       string
		method     string
		path       string
		key        string
		body       string
		giveID     string
		wantStatus int
		wantLevel  string // of at least one line
		wantSameID bool   // the response echoes giveID
	}{
		{name: "failed readiness check (handler log)", method: http.MethodGet, path: "/readyz",
			wantStatus: http.StatusServiceUnavailable, wantLevel: "WARN"},
		{name: "server error", method: http.MethodPost, path: "/v1/meetings/00000000-0000-0000-0000-000000000001/generate-pr",
			key: key, wantStatus: http.StatusServiceUnavailable, wantLevel: "ERROR"},
		{name: "client error", method: http.MethodPost, path: "/v1/meetings", key: key, body: `{"title": 회의`,
			wantStatus: http.StatusBadRequest, wantLevel: "DEBUG"},
		{name: "unauthenticated", method: http.MethodGet, path: "/v1/meetings", key: "mh_wrong",
			wantStatus: http.StatusUnauthorized, wantLevel: "DEBUG"},
		{name: "client id kept", method: http.MethodGet, path: "/v1/nope", key: key, giveID: "lb-7f3a.42:1",
			wantStatus: http.StatusNotFound, wantLevel: "DEBUG", wantSameID: true},
		{name: "unsafe client id replaced", method: http.MethodGet, path: "/v1/nope", key: key,
			giveID: "id with spaces\"{}", wantStatus: http.StatusNotFound, wantLevel: "DEBUG"},
		{name: "overlong client id replaced", method: http.MethodGet, path: "/v1/nope", key: key,
			giveID: strings.Repeat("a", 200), wantStatus: http.StatusNotFound, wantLevel: "DEBUG"},
	}
	_, offset := logs.since(t, 0)
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr []string
			if tt.giveID != "" {
				hdr = []string{"X-Request-ID", tt.giveID}
			}
			r := a.do(tt.method, tt.path, tt.key, tt.body, hdr...)
			if r.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d", r.StatusCode, tt.wantStatus)
			}
			id := r.Header.Get("X-Request-ID")
			switch {
			case id == "":
				t.Fatal("no X-Request-ID in the response")
			case tt.wantSameID && id != tt.giveID:
				t.Errorf("X-Request-ID = %q, want the client's %q", id, tt.giveID)
			case !tt.wantSameID && id == tt.giveID:
				t.Errorf("X-Request-ID echoes the unsafe client id %q", id)
			case seen[id]:
				t.Errorf("X-Request-ID %q reused", id)
			}
			seen[id] = true
			var recs []map[string]any
			recs, offset = logs.since(t, offset)
			levels := map[string]bool{}
			for _, rec := range recs {
				levels[rec["level"].(string)] = true
				if rec["request_id"] != id {
					t.Errorf("log line without this request's id %q: %v", id, rec)
				}
			}
			if !levels[tt.wantLevel] {
				t.Errorf("no %s line among %v", tt.wantLevel, recs)
			}
		})
	}
}
