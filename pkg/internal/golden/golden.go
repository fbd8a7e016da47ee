// Package golden compares test output with reviewed files under testdata:
// a test renders what it checks (a prompt, a parsed model reply) and Check
// fails when it differs from the file. `go test ./pkg/... -update` rewrites
// the files instead; the diff is then reviewed like code.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata with the current output")

// Check compares got with the file at path (relative to the test's
// package), or writes it with -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test -update rewrites it; review the diff):\n%s", path, diff(string(want), string(got)))
	}
}

// CheckJSON is Check of v as indented JSON with a final newline.
func CheckJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	Check(t, path, append(b, '\n'))
}

// diff shows the first differing line of want and got with its
// neighbours.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	for k := max(0, i-2); k < i; k++ {
		b.WriteString("  " + w[k] + "\n")
	}
	for k := i; k < min(len(w), i+3); k++ {
		b.WriteString("- " + w[k] + "\n")
	}
	for k := i; k < min(len(g), i+3); k++ {
		b.WriteString("+ " + g[k] + "\n")
	}
	return b.String()
}

// Files returns the names of the files in dir ending in ext, sorted.
func Files(t testing.TB, dir, ext string) []string {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	if err != nil || len(ms) == 0 {
		t.Fatalf("no %s files in %s (%v)", ext, dir, err)
	}
	return ms
}

// Prompt renders a chat request's messages for a snapshot: each message
// under a "=== role" line.
func Prompt(req llm.ChatRequest) []byte {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString("=== " + string(m.Role) + "\n" + m.Content + "\n")
	}
	return []byte(b.String())
}
