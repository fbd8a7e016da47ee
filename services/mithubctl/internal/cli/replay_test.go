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

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

func TestReplayCommand(t *testing.T) {
	var posted atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/meetings", func(w http.ResponseWriter, r *http.Request) {
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

	stdout, stderr, err := runCLI(t, []string{"replay", "--meeting-file", path, "--batch", "3"},
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
}
