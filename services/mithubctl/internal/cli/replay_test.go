package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

func TestReplayCommand(t *testing.T) {
	var posted atomic.Int64
	var created struct {
		Title     string `json:"title"`
		StartedAt string `json:"started_at"`
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/meetings", func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&created)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"6f1c2a9e-0000-4000-8000-000000000001","status":"active","started_at":"2025-03-01T09:00:00Z"}`)
	})
	mux.HandleFunc("POST /v1/meetings/{id}/utterances", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Utterances []json.RawMessage `json:"utterances"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		posted.Add(int64(len(req.Utterances)))
		fmt.Fprintf(w, `{"inserted":%d,"duplicates":0,"cursor":%d}`, len(req.Utterances), posted.Load()-1)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	path := filepath.Join(t.TempDir(), "demo.jsonl")
	lines := strings.Repeat(`{"speaker_name":"Alice","text":"hi"}`+"\n", 7)
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, err := runCLI(t, []string{"replay", "--meeting-file", path, "--batch", "3", "--started-at", "2026-03-12T10:00:00+09:00"},
		map[string]string{cmdline.EnvAPIURL: srv.URL, cmdline.EnvAPIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if stdout != "6f1c2a9e-0000-4000-8000-000000000001\n" {
		t.Errorf("stdout = %q, want only the meeting id", stdout)
	}
	if posted.Load() != 7 || !strings.Contains(stderr, "7/7 100%") || !strings.Contains(stderr, "7 inserted, 0 duplicates") {
		t.Errorf("posted %d; stderr:\n%s", posted.Load(), stderr)
	}
	if at, err := time.Parse(time.RFC3339, created.StartedAt); err != nil || created.Title != "demo" ||
		!at.Equal(time.Date(2026, 3, 12, 1, 0, 0, 0, time.UTC)) {
		t.Errorf("created meeting %+v, want title demo started at 2026-03-12T01:00:00Z", created)
	}
}
