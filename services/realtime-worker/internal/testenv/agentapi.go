package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

var agentAPIBuild struct {
	once sync.Once
	dir  string
	err  error
}

// AgentAPIBinary builds agent-api from this repository once per process
// into a temporary directory; CleanupBinaries removes it.
func AgentAPIBinary() (string, error) {
	agentAPIBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "mithub-rt-bin")
		if err != nil {
			agentAPIBuild.err = err
			return
		}
		agentAPIBuild.dir = dir
		cmd := exec.Command("go", "build", "-o", dir, "github.com/mithub/mithub/services/agent-api/cmd/agent-api")
		cmd.Dir = RepoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			agentAPIBuild.err = fmt.Errorf("go build agent-api: %v\n%s", err, out)
		}
	})
	return filepath.Join(agentAPIBuild.dir, "agent-api"), agentAPIBuild.err
}

// CleanupBinaries removes what AgentAPIBinary built.
func CleanupBinaries() {
	if agentAPIBuild.dir != "" {
		os.RemoveAll(agentAPIBuild.dir)
	}
}

// AgentAPI is a running agent-api in dev mode (key dev-key).
type AgentAPI struct {
	// URL is its base URL.
	URL  string
	bin  string
	env  []string
	proc *Process
}

// StartAgentAPI runs agent-api on a free port against databaseURL with
// the local providers. env adds variables.
func StartAgentAPI(ctx context.Context, bin, databaseURL, redisURL string, env ...string) (*AgentAPI, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	a := &AgentAPI{
		URL: "http://" + addr,
		bin: bin,
		env: append([]string{
			"MITHUB_ENV=dev", "MITHUB_DATABASE_URL=" + databaseURL, "MITHUB_REDIS_URL=" + redisURL,
			"MITHUB_HTTP_ADDR=" + addr, "MITHUB_LLM_PROVIDER=local", "MITHUB_EMBED_PROVIDER=local",
			"MITHUB_LOG_LEVEL=warn", "MITHUB_SHUTDOWN_TIMEOUT=5s",
		}, env...),
	}
	if err := a.Start(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

// Start starts the process (again) and waits for /healthz.
func (a *AgentAPI) Start(ctx context.Context) error {
	p, err := startProcess(a.bin, a.env)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := waitHTTP(wctx, a.URL+"/healthz", p); err != nil {
		p.Kill()
		return fmt.Errorf("agent-api: %w", err)
	}
	a.proc = p
	return nil
}

// Stop ends the process gracefully.
func (a *AgentAPI) Stop() { a.proc.Stop(10 * time.Second) }

// Output is the process's log so far.
func (a *AgentAPI) Output() string { return a.proc.Output() }
