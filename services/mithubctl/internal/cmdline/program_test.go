package cmdline

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
)

// testProgram has one command in each of two groups.
func testProgram() Program {
	cmd := func(name string) Command {
		return Command{Name: name, Summary: name + " things", Usage: "prog " + name + " [--n N]",
			Flags: func() *flag.FlagSet { fs := NewFlagSet(name); fs.Int("n", 0, "how many"); return fs },
			Run: func(_ context.Context, e *Env, args []string) error {
				fs := NewFlagSet(name)
				n := fs.Int("n", 0, "how many")
				if err := ParseFlags(fs, args); err != nil {
					return err
				}
				if *n < 0 {
					return UsageErrorf(name, "--n %d: want >= 0", *n)
				}
				_, err := e.Stdout.Write([]byte(e.UserAgent()))
				return err
			}}
	}
	return Program{Name: "prog", Title: "a test", Groups: []Group{
		{Title: "First", Commands: []Command{cmd("one")}},
		{Title: "Second", Commands: []Command{cmd("two-long")}},
	}, Env: []EnvVar{{Name: "PROG_X", Help: "an x"}}}
}

func TestProgramRun(t *testing.T) {
	tests := []struct {
		name     string
		give     []string
		want     string
		wantErr  string
		wantCode int
	}{
		{name: "command", give: []string{"one"}, want: "prog/1"},
		{name: "overview", give: []string{"help"},
			want: "prog: a test\n\nUsage:\n  prog one [--n N]\n  prog two-long [--n N]\n  prog help [command]\n\n" +
				"Commands:\n  First:\n    one       one things\n  Second:\n    two-long  two-long things\n" +
				"  help        show this help or a command's flags\n\nEnvironment:\n  PROG_X               an x\n"},
		{name: "command help", give: []string{"two-long", "-h"}, want: "Usage: prog two-long [--n N]\n\ntwo-long things\n\nFlags:\n  -n int\n    \thow many\n"},
		{name: "no command", give: nil, wantErr: "no command (see 'prog help')", wantCode: 2},
		{name: "unknown", give: []string{"three"}, wantErr: `unknown command "three" (see 'prog help')`, wantCode: 2},
		{name: "bad value", give: []string{"one", "--n", "-1"}, wantErr: "one: --n -1: want >= 0 (see 'prog help one')", wantCode: 2},
		{name: "extra argument", give: []string{"one", "x"}, wantErr: `one: unexpected argument "x" (see 'prog help one')`, wantCode: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := testProgram().Run(t.Context(), tt.give, &stdout, &stderr, func(string) string { return "" })
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if code := ExitCode(err); code != tt.wantCode {
				t.Errorf("exit code = %d, want %d", code, tt.wantCode)
			}
			if stdout.String() != tt.want {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.want)
			}
		})
	}
}

func TestExitCode(t *testing.T) {
	if ExitCode(nil) != 0 || ExitCode(UsageErrorf("x", "bad")) != 2 || ExitCode(errors.New("boom")) != 1 {
		t.Errorf("exit codes: nil %d, usage %d, other %d", ExitCode(nil), ExitCode(UsageErrorf("x", "bad")), ExitCode(errors.New("boom")))
	}
}

func TestAPIConfigResolve(t *testing.T) {
	tests := []struct {
		name    string
		give    APIConfig
		giveEnv map[string]string
		want    APIConfig
		wantErr string
	}{
		{name: "defaults", giveEnv: map[string]string{EnvAPIKey: "k"}, want: APIConfig{URL: DefaultAPIURL, Key: "k"}},
		{name: "flags win", give: APIConfig{URL: "http://a:1", Key: "f"}, giveEnv: map[string]string{EnvAPIURL: "http://b:2", EnvAPIKey: "k"},
			want: APIConfig{URL: "http://a:1", Key: "f"}},
		{name: "no key", wantErr: "no API key"},
		{name: "bad url", give: APIConfig{URL: "a:1", Key: "k"}, wantErr: `API URL "a:1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.give
			err := got.Resolve("cmd", func(k string) string { return tt.giveEnv[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || ExitCode(err) != 2 {
					t.Fatalf("err = %v, want a usage error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Resolve = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestSetting(t *testing.T) {
	getenv := func(k string) string { return map[string]string{"SET": "from-env"}[k] }
	for _, tt := range []struct{ flag, env, want string }{
		{"from-flag", "SET", "from-flag"},
		{"", "SET", "from-env"},
		{"", "UNSET", "default"},
	} {
		if got := Setting(tt.flag, getenv, tt.env, "default"); got != tt.want {
			t.Errorf("Setting(%q, %s) = %q, want %q", tt.flag, tt.env, got, tt.want)
		}
	}
}
