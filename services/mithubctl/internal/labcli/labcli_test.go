package labcli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// envMap returns a getenv over m.
func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// runLab runs args and returns stdout, stderr and the error.
func runLab(t *testing.T, args []string, env map[string]string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := Run(t.Context(), args, &stdout, &stderr, envMap(env))
	return stdout.String(), stderr.String(), err
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name    string
		give    []string
		wantErr string
	}{
		{name: "no command", give: nil, wantErr: "no command (see 'mithub-lab help')"},
		{name: "user command", give: []string{"replay"}, wantErr: `unknown command "replay"`},
		{name: "train-answers without dir", give: []string{"train-answers"}, wantErr: "train-answers: a QMSum directory is required, e.g. ../shared/data/qmsum/train"},
		{name: "train-answers negative rounds", give: []string{"train-answers", "dir", "--rounds", "-1"}, wantErr: "--rounds >= 0"},
		{name: "train-answers negative cite weight", give: []string{"train-answers", "dir", "--cite-weight", "-0.1"}, wantErr: "--cite-weight >= 0"},
		{name: "train-decisions flags only", give: []string{"train-decisions", "--out", "x.json"}, wantErr: "train-decisions: a QMSum directory is required"},
		{name: "train-headings without dir", give: []string{"train-headings"}, wantErr: "train-headings: a QMSum directory is required, e.g. ../shared/data/qmsum/train"},
		{name: "train-retrieval bad flag", give: []string{"train-retrieval", "dir", "--speed", "2"}, wantErr: "flag provided but not defined: -speed (see 'mithub-lab help train-retrieval')"},
		{name: "eval-pr without dir", give: []string{"eval-pr"}, wantErr: "eval-pr: a QMSum directory is required, e.g. ../shared/data/qmsum/val"},
		{name: "eval bad batch", give: []string{"eval", "dir", "--batch", "0"}, wantErr: "eval: --batch must be 1..500"},
		{name: "bench-memory bad sizes", give: []string{"bench-memory", "--sizes", "abc"}, wantErr: `--sizes: "abc" is not a token count`},
		{name: "eval-memory bad sizes", give: []string{"eval-memory", "--sizes", "100"}, wantErr: `--sizes: "100" is not a token count`},
		{name: "fake-llm bad mode", give: []string{"fake-llm", "--mode", "sideways"}, wantErr: "fake-llm: --mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, _, err := runLab(t, tt.give, nil)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
			if code := cmdline.ExitCode(err); code != 2 {
				t.Errorf("exit code = %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	tests := []struct {
		name string
		give []string
		want []string
	}{
		{name: "overview", give: []string{"help"}, want: []string{"mithub-lab eval [DIR]", "mithub-lab load [--meetings 10]",
			"    train-decisions  ", "    train-headings  ", "    fake-llm  ", "Benchmarks:", "MITHUB_QMSUM_DIR"}},
		{name: "command", give: []string{"help", "bench-ask"}, want: []string{"Usage: mithub-lab bench-ask", "-askers", "-api-key"}},
		{name: "command flag", give: []string{"load", "-h"}, want: []string{"-meetings", "-max-rss-growth"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, _, err := runLab(t, tt.give, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("help output lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}
