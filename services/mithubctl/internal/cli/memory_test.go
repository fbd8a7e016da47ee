package cli

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

func TestMemoryCommands(t *testing.T) {
	dsn, schema := storetest.NewSchema(t)
	dbURL := storetest.URLWithSchema(t, dsn, schema)
	out, _, err := runCLI(t, []string{"apikey", "create", "--tenant", "acme", "--database-url", dbURL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(out)
	env := map[string]string{cmdline.EnvDatabaseURL: dbURL, cmdline.EnvAPIKey: key, "MITHUB_LLM_CONTEXT_WINDOW": "8192"}

	out, _, err = runCLI(t, []string{"start", "--title", "설계 리뷰"}, env)
	if err != nil {
		t.Fatal(err)
	}
	conv := strings.TrimSpace(out)

	// Fill the conversation with a QMSum meeting (about 6K tokens) and a
	// Korean decision.
	m, err := openMemory(t.Context(), memoryFlags{DatabaseURL: dbURL, APIKey: key}, envMap(env), false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	dir := qmsumtest.Dir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "val", "*.json"))
	meeting, err := qmsum.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, tr := range meeting.Turns {
		if strings.TrimSpace(tr.Content) == "" {
			continue
		}
		turn, err := m.svc.AddMessage(t.Context(), m.tenantID, conv, tr.Speaker, tr.Content)
		if err != nil {
			t.Fatal(err)
		}
		if total += turn.Tokens; total > 6000 {
			break
		}
	}
	if _, err := m.svc.AddMessage(t.Context(), m.tenantID, conv, "user", "결정: 데모는 목요일 오후 세 시에 진행"); err != nil {
		t.Fatal(err)
	}

	out, errOut, err := runCLI(t, []string{"compress", "--conversation", conv, "--inline"}, env)
	if err != nil {
		t.Fatalf("compress: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, "compressed "+conv) || !strings.Contains(errOut, "summaries, level") {
		t.Errorf("compress output:\n%s\nprogress:\n%s", out, errOut)
	}

	out, _, err = runCLI(t, []string{"context", "--conversation", conv, "--json"}, env)
	if err != nil {
		t.Fatal(err)
	}
	var doc convmemory.Context
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tokens > 819 || doc.Summaries == 0 || doc.Truncated {
		t.Errorf("context: %d tokens (budget 819), %d summaries, truncated %v", doc.Tokens, doc.Summaries, doc.Truncated)
	}
	out, _, err = runCLI(t, []string{"context", "--conversation", conv}, env)
	if err != nil || !strings.Contains(out, "[Summary of turns 0-") || !strings.Contains(out, "목요일") {
		t.Errorf("context text (%v):\n%s", err, out)
	}

	out, _, err = runCLI(t, []string{"search", "--query", "데모는 언제", "--conversation", conv}, env)
	if err != nil || !strings.Contains(strings.Split(out, "\n")[0], "목요일") {
		t.Errorf("search (%v):\n%s", err, out)
	}

	out, _, err = runCLI(t, []string{"export", "--conversation", conv, "--format", "json"}, env)
	if err != nil {
		t.Fatal(err)
	}
	var x convmemory.Export
	if err := json.Unmarshal([]byte(out), &x); err != nil {
		t.Fatal(err)
	}
	if len(x.Turns) != x.Stats.Turns || len(x.Summaries) == 0 || x.Conversation.Title != "설계 리뷰" {
		t.Errorf("export: %d turns (stats %d), %d summaries, title %q", len(x.Turns), x.Stats.Turns, len(x.Summaries), x.Conversation.Title)
	}
	out, _, err = runCLI(t, []string{"export", "--conversation", conv}, env)
	if err != nil || !strings.HasPrefix(out, "# 설계 리뷰") || !strings.Contains(out, "## Summaries") || !strings.Contains(out, "## Transcript") {
		t.Errorf("markdown export (%v):\n%.300s", err, out)
	}

	out, _, err = runCLI(t, []string{"apikey", "revoke", "--key", key, "--database-url", dbURL}, nil)
	if err != nil || strings.TrimSpace(out) != "revoked" {
		t.Fatalf("revoke: %v %q", err, out)
	}
	if _, _, err := runCLI(t, []string{"search", "--query", "demo"}, env); err == nil || !strings.Contains(err.Error(), "unknown or revoked") {
		t.Errorf("revoked key still works: %v", err)
	}
	if _, _, err := runCLI(t, []string{"apikey", "revoke", "--key", "mh_nope", "--database-url", dbURL}, nil); err == nil ||
		!strings.Contains(err.Error(), "no such key") {
		t.Errorf("revoking an unknown key: %v", err)
	}
}

func TestMemoryCommandUsageErrors(t *testing.T) {
	env := map[string]string{cmdline.EnvAPIKey: "k"}
	tests := []struct {
		name    string
		give    []string
		wantErr string
	}{
		{"compress without conversation", []string{"compress"}, "compress: --conversation is required"},
		{"export bad format", []string{"export", "--conversation", "c", "--format", "pdf"}, "--format must be markdown or json"},
		{"search without query", []string{"search"}, "--query is required"},
		{"search k", []string{"search", "--query", "x", "--k", "0"}, "--k must be from 1 to 100"},
		{"start both", []string{"start", "--title", "t", "--meeting", "m"}, "exclude each other"},
		{"context both", []string{"context", "--conversation", "c", "--meeting", "m"}, "exclude each other"},
		{"revoke without key", []string{"apikey", "revoke"}, "--key is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCLI(t, tt.give, env)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || cmdline.ExitCode(err) != 2 {
				t.Errorf("err = %v, want a usage error containing %q", err, tt.wantErr)
			}
		})
	}
	if _, _, err := runCLI(t, []string{"start"}, nil); err == nil || !strings.Contains(err.Error(), "no tenant") {
		t.Errorf("start without a key: %v", err)
	}
}
