package cli

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

// runCLI runs args and returns stdout, stderr and the error.
func runCLI(t *testing.T, args []string, env map[string]string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := Run(t.Context(), args, &stdout, &stderr, envMap(env))
	return stdout.String(), stderr.String(), err
}

func TestParseReplay(t *testing.T) {
	keyEnv := map[string]string{cmdline.EnvAPIKey: "env-key"}
	tests := []struct {
		name    string
		give    []string
		giveEnv map[string]string
		want    replayConfig
	}{
		{
			name:    "defaults",
			give:    []string{"--meeting-file", "Bed002.json"},
			giveEnv: keyEnv,
			want: replayConfig{
				API:  cmdline.APIConfig{URL: cmdline.DefaultAPIURL, Key: "env-key"},
				File: "Bed002.json", Batch: 50, Language: "en",
			},
		},
		{
			name: "all flags",
			give: []string{"--meeting-file=a.jsonl", "--rate", "12.5", "--batch", "10", "--meeting", "m-1",
				"--language", "ko", "--api-url", "http://api:9000", "--api-key", "flag-key"},
			giveEnv: map[string]string{cmdline.EnvAPIURL: "http://env:1", cmdline.EnvAPIKey: "env-key"},
			want: replayConfig{
				API:  cmdline.APIConfig{URL: "http://api:9000", Key: "flag-key"},
				File: "a.jsonl", Rate: 12.5, Batch: 10, MeetingID: "m-1", Language: "ko",
			},
		},
		{
			name:    "recorded meeting's start",
			give:    []string{"--meeting-file", "a.jsonl", "--started-at", "2026-03-12T10:00:00+09:00"},
			giveEnv: keyEnv,
			want: replayConfig{
				API:  cmdline.APIConfig{URL: cmdline.DefaultAPIURL, Key: "env-key"},
				File: "a.jsonl", Batch: 50, Language: "en", StartedAt: "2026-03-12T10:00:00+09:00",
			},
		},
		{
			name:    "url from env",
			give:    []string{"-meeting-file", "a.json"},
			giveEnv: map[string]string{cmdline.EnvAPIURL: "https://mithub.example.com", cmdline.EnvAPIKey: "k"},
			want: replayConfig{
				API:  cmdline.APIConfig{URL: "https://mithub.example.com", Key: "k"},
				File: "a.json", Batch: 50, Language: "en",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseReplay(tt.give, envMap(tt.giveEnv))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("config = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	keyEnv := map[string]string{cmdline.EnvAPIKey: "k"}
	tests := []struct {
		name    string
		give    []string
		giveEnv map[string]string
		wantErr string
	}{
		{name: "no command", give: nil, wantErr: "no command"},
		{name: "unknown command", give: []string{"frobnicate"}, wantErr: `unknown command "frobnicate"`},
		{name: "replay without file", give: []string{"replay"}, giveEnv: keyEnv, wantErr: "replay: --meeting-file is required"},
		{name: "unknown flag", give: []string{"replay", "--speed", "2"}, wantErr: "replay: flag provided but not defined: -speed"},
		{name: "bad rate", give: []string{"replay", "--meeting-file", "a.json", "--rate", "fast"}, wantErr: `invalid value "fast" for flag -rate`},
		{name: "negative rate", give: []string{"replay", "--meeting-file", "a.json", "--rate", "-1"}, giveEnv: keyEnv, wantErr: "--rate -1: want a number >= 0"},
		{name: "batch zero", give: []string{"replay", "--meeting-file", "a.json", "--batch", "0"}, giveEnv: keyEnv, wantErr: "--batch 0: want 1 to 500"},
		{name: "batch too big", give: []string{"replay", "--meeting-file", "a.json", "--batch", "501"}, giveEnv: keyEnv, wantErr: "--batch 501: want 1 to 500"},
		{name: "extra argument", give: []string{"replay", "--meeting-file", "a.json", "b.json"}, wantErr: `unexpected argument "b.json"`},
		{name: "bad start", give: []string{"replay", "--meeting-file", "a.json", "--started-at", "2026-03-12"}, giveEnv: keyEnv, wantErr: `--started-at "2026-03-12": want an RFC 3339 time`},
		{name: "start of a resumed meeting", give: []string{"replay", "--meeting-file", "a.json", "--meeting", "m-1", "--started-at", "2026-03-12T01:00:00Z"}, giveEnv: keyEnv, wantErr: "--started-at is for a created meeting, not with --meeting"},
		{name: "no api key", give: []string{"replay", "--meeting-file", "a.json"}, wantErr: "no API key: set MITHUB_API_KEY"},
		{name: "bad api url", give: []string{"replay", "--meeting-file", "a.json", "--api-url", "localhost:8080"}, giveEnv: keyEnv, wantErr: `API URL "localhost:8080"`},
		{name: "context without meeting", give: []string{"context", "--json"}, giveEnv: keyEnv, wantErr: "context: --meeting is required"},
		{name: "apikey without subcommand", give: []string{"apikey"}, wantErr: "apikey: missing subcommand"},
		{name: "apikey unknown subcommand", give: []string{"apikey", "delete"}, wantErr: `unknown subcommand "delete"`},
		{name: "apikey without tenant", give: []string{"apikey", "create"}, wantErr: "apikey: --tenant is required"},
		{name: "help unknown", give: []string{"help", "nope"}, wantErr: `help: unknown command "nope" (see 'mithubctl help help')`},
		{name: "lab command", give: []string{"eval"}, wantErr: `unknown command "eval" (see 'mithubctl help')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, _, err := runCLI(t, tt.give, tt.giveEnv)
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
		{name: "overview", give: []string{"help"}, want: []string{"mithubctl replay --meeting-file F", "mithubctl context --meeting ID", "mithubctl apikey create --tenant NAME", "MITHUB_API_URL"}},
		{name: "dash h", give: []string{"-h"}, want: []string{"Commands:"}},
		{name: "command", give: []string{"help", "replay"}, want: []string{"-meeting-file", "-rate", "-api-key"}},
		{name: "command flag", give: []string{"context", "-h"}, want: []string{"-json", "-meeting"}},
		{name: "apikey flag", give: []string{"apikey", "create", "--help"}, want: []string{"-tenant", "-database-url"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, _, err := runCLI(t, tt.give, nil)
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

// TestHelpListsUserCommands: mithubctl's overview names every user and
// operator command, and none of mithub-lab's.
func TestHelpListsUserCommands(t *testing.T) {
	stdout, _, err := runCLI(t, []string{"help"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"replay", "context", "ask", "pr", "start", "search", "export", "compress", "mcp",
		"migrate", "apikey", "security-check"} {
		if !strings.Contains(stdout, "\n    "+name+" ") {
			t.Errorf("help lacks %s:\n%s", name, stdout)
		}
	}
	for _, name := range []string{"eval", "eval-pr", "train-retrieval", "train-answers", "train-decisions", "train-headings", "bench-ingest",
		"bench-context", "bench-ask", "bench-memory", "bench-pr", "load", "fake-llm"} {
		if strings.Contains(stdout, "mithubctl "+name+" ") || strings.Contains(stdout, "\n    "+name+" ") {
			t.Errorf("help lists the lab command %s:\n%s", name, stdout)
		}
	}
}
