// Package agentapitest runs a real agent-api process for the tests of
// mithubctl and mithub-lab commands.
package agentapitest

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// repoRoot is the repository root, found from this file.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
}

// Build builds the command at import path pkg from the repository into
// the test's temporary directory and returns the binary's path.
func Build(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	build := exec.Command("go", "build", "-o", bin, pkg)
	build.Dir = repoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// Start builds agent-api from the repository and runs it in dev mode
// against databaseURL with the local providers, env overriding any
// variable ("MITHUB_LLM_PROVIDER=openai"); it returns its URL and pid. The
// process is stopped (SIGTERM, then SIGKILL after 10 s) when the test
// ends.
func Start(t *testing.T, databaseURL string, env ...string) (string, int) {
	t.Helper()
	bin := Build(t, "github.com/mithub/mithub/services/agent-api/cmd/agent-api")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	redisURL := os.Getenv("MITHUB_TEST_REDIS_URL")
	if redisURL == "" {
		redisURL = "redis://127.0.0.1:6379/13"
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "MITHUB_ENV=dev", "MITHUB_DATABASE_URL="+databaseURL, "MITHUB_REDIS_URL="+redisURL,
		"MITHUB_HTTP_ADDR="+addr, "MITHUB_LLM_PROVIDER=local", "MITHUB_EMBED_PROVIDER=local", "MITHUB_LOG_LEVEL=warn")
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	url := "http://" + addr
	for deadline := time.Now().Add(60 * time.Second); ; {
		if resp, err := http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, cmd.Process.Pid
			}
		}
		select {
		case <-done:
			t.Fatalf("agent-api exited: %s", out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent-api did not answer /healthz: %s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
