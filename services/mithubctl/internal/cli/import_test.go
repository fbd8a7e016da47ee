package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/mithubctl/internal/agentapitest"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

func TestImportExportUsageErrors(t *testing.T) {
	keyEnv := map[string]string{cmdline.EnvAPIKey: "k"}
	for _, tt := range []struct {
		name    string
		give    []string
		wantErr string
	}{
		{"import without file", []string{"import"}, "name the transcript FILE"},
		{"import two files", []string{"import", "a.vtt", "b.vtt"}, `unexpected argument "b.vtt"`},
		{"import bad time", []string{"import", "a.vtt", "--started-at", "noon"}, "--started-at"},
		{"export nothing", []string{"export"}, "exactly one of --conversation, --meeting and --pr"},
		{"export two", []string{"export", "--meeting", "m", "--pr", "p"}, "exactly one"},
		{"export meeting format", []string{"export", "--meeting", "m", "--format", "docx"}, "vtt, srt, md, json or jsonl"},
		{"export pr format", []string{"export", "--pr", "p", "--format", "vtt"}, "md or json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCLI(t, tt.give, keyEnv)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || cmdline.ExitCode(err) != 2 {
				t.Fatalf("err = %v (exit %d), want a usage error containing %q", err, cmdline.ExitCode(err), tt.wantErr)
			}
		})
	}
}

// Import a file into a real agent-api twice, export it and import the
// export.
func TestImportAndExportAgainstAgentAPI(t *testing.T) {
	dsn, schema := storetest.NewSchema(t)
	url, _ := agentapitest.Start(t, storetest.URLWithSchema(t, dsn, schema))
	env := map[string]string{cmdline.EnvAPIURL: url, cmdline.EnvAPIKey: "dev-key"}
	file := filepath.Join("..", "..", "..", "..", "examples", "meetings", "launch-review.jsonl")

	out, errOut, err := runCLI(t, []string{"import", file, "--title", "Haru 2.0 launch review", "--started-at", "2026-03-12T09:00:00Z"}, env)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, errOut)
	}
	id := strings.TrimSpace(out)
	if len(id) != 36 || !strings.Contains(errOut, "272 segments (jsonl), 272 stored") {
		t.Fatalf("import printed %q, %q", out, errOut)
	}
	out, errOut, err = runCLI(t, []string{"import", "--title", "again", file}, env)
	if err != nil || strings.TrimSpace(out) != id || !strings.Contains(errOut, "0 stored, 272 already stored; already imported") {
		t.Fatalf("second import: %v %q %q", err, out, errOut)
	}

	vtt := filepath.Join(t.TempDir(), "launch.vtt")
	if _, errOut, err := runCLI(t, []string{"export", "--meeting", id, "--out", vtt}, env); err != nil {
		t.Fatalf("export: %v %s", err, errOut)
	}
	b, err := os.ReadFile(vtt)
	if err != nil || !strings.HasPrefix(string(b), "WEBVTT") || strings.Count(string(b), " --> ") != 272 {
		t.Fatalf("exported vtt (%v): %.200s", err, b)
	}
	out, errOut, err = runCLI(t, []string{"import", vtt}, env)
	if err != nil || !strings.Contains(errOut, "272 segments (vtt), 272 stored") {
		t.Fatalf("import of the export: %v %q %q", err, out, errOut)
	}
	out, _, err = runCLI(t, []string{"export", "--meeting", id, "--format", "md"}, env)
	if err != nil || !strings.HasPrefix(out, "# Haru 2.0 launch review\n") {
		t.Fatalf("markdown export: %v %.200s", err, out)
	}
	if _, _, err := runCLI(t, []string{"export", "--meeting", "00000000-0000-0000-0000-000000000000"}, env); err == nil ||
		!strings.Contains(err.Error(), "404") {
		t.Fatalf("export of an unknown meeting: %v", err)
	}
	if _, _, err := runCLI(t, []string{"import", filepath.Join("testdata", "missing.vtt")}, env); err == nil {
		t.Fatal("import of a missing file succeeded")
	}
}
