package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// syncBuffer is a stderr several goroutines write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// mcpSession runs `mithubctl mcp args` on pipes and returns a client
// session on it; stop closes the client and waits for the server to end.
func mcpSession(t *testing.T, env map[string]string, args ...string) (cs *mcp.ClientSession, stop func()) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &syncBuffer{}
	e := &cmdline.Env{Program: "mithubctl", Stdin: inR, Stdout: outW, Stderr: stderr, Getenv: envMap(env)}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		err := runMCP(ctx, e, args)
		_ = outW.Close()
		done <- err
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		cancel()
		t.Fatalf("connect: %v (stderr %s)", err, stderr)
	}
	return cs, func() {
		t.Helper()
		_ = cs.Close()
		_ = inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("mcp: %v (stderr %s)", err, stderr)
			}
		case <-time.After(10 * time.Second):
			t.Error("mcp did not end when its input closed")
		}
		cancel()
	}
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", name, err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A restarted `mithubctl mcp` resumes the conversation it served, not the
// newest one; --conversation and a lost conversation override it.
func TestMCPResumesTheConversationItServed(t *testing.T) {
	dsn, schema := storetest.NewSchema(t)
	dbURL := storetest.URLWithSchema(t, dsn, schema)
	out, _, err := runCLI(t, []string{"apikey", "create", "--tenant", "acme", "--database-url", dbURL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stateDir := t.TempDir()
	env := map[string]string{cmdline.EnvDatabaseURL: dbURL, cmdline.EnvAPIKey: strings.TrimSpace(out),
		"MITHUB_LLM_CONTEXT_WINDOW": "8192", envStateDir: stateDir}

	cs, stop := mcpSession(t, env)
	served := callTool(t, cs, "memory_start_conversation", map[string]any{"title": "served"})["id"].(string)
	callTool(t, cs, "memory_add_message", map[string]any{"role": "user", "content": "remember me"})
	stop()
	// Another client starts a newer conversation meanwhile.
	out, _, err = runCLI(t, []string{"start", "--title", "newer"}, env)
	if err != nil {
		t.Fatal(err)
	}
	newer := strings.TrimSpace(out)

	cs, stop = mcpSession(t, env)
	got := callTool(t, cs, "memory_add_message", map[string]any{"role": "user", "content": "after the restart"})
	if got["conversation_id"] != served || got["seq"] != 1.0 {
		t.Errorf("after a restart the add went to %v seq %v, want %s seq 1 (not the newest, %s)", got["conversation_id"], got["seq"], served, newer)
	}
	stop()

	// --conversation wins and becomes what the next start resumes.
	cs, stop = mcpSession(t, env, "--conversation", newer)
	if got := callTool(t, cs, "memory_get_stats", nil); got["conversation_id"] != newer {
		t.Errorf("--conversation %s: stats of %v", newer, got["conversation_id"])
	}
	stop()
	cs, stop = mcpSession(t, env)
	if got := callTool(t, cs, "memory_get_stats", nil); got["conversation_id"] != newer {
		t.Errorf("after --conversation %s the restart resumed %v", newer, got["conversation_id"])
	}
	stop()

	// The state is per tenant and API URL; a state naming a conversation
	// that is gone (or damaged) starts without one.
	b, err := os.ReadFile(filepath.Join(stateDir, mcpStateFile))
	if err != nil || !strings.Contains(string(b), newer) || !strings.Contains(string(b), cmdline.DefaultAPIURL) {
		t.Fatalf("state file %s: %v", b, err)
	}
	if err := os.WriteFile(filepath.Join(stateDir, mcpStateFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs, stop = mcpSession(t, env, "--state-dir", stateDir)
	if got := callTool(t, cs, "memory_get_stats", nil); got["conversation_id"] != newer {
		// Without state the server falls back to the newest conversation.
		t.Errorf("with a damaged state file: %v, want the newest %s", got["conversation_id"], newer)
	}
	stop()
}
