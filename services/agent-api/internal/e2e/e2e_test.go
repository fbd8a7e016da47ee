// Package e2e runs the built agent-api and mithubctl binaries as separate
// processes against the real PostgreSQL and Redis.
package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds agent-api and mithubctl once per test binary.
func binaries(t *testing.T) (api, ctl string) {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "mithub-e2e-bin")
		if buildErr != nil {
			return
		}
		for _, pkg := range []string{
			"github.com/mithub/mithub/services/agent-api/cmd/agent-api",
			"github.com/mithub/mithub/services/mithubctl/cmd/mithubctl",
		} {
			out, err := exec.Command("go", "build", "-o", binDir, pkg).CombinedOutput()
			if err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "agent-api"), filepath.Join(binDir, "mithubctl")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// process is a started service.
type process struct {
	cmd  *exec.Cmd
	done chan error
	logs *lockedBuilder
}

type lockedBuilder struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func start(t *testing.T, bin string, env []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	w := &lockedBuilder{b: &strings.Builder{}}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, done: make(chan error, 1), logs: w}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(bin), w.String())
		}
	})
	return p
}

// waitHealthy polls /healthz until it answers or the deadline passes.
func waitHealthy(t *testing.T, base string, p *process) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case err := <-p.done:
			t.Fatalf("agent-api exited before becoming healthy: %v", err)
		case <-deadline:
			t.Fatal("agent-api did not become healthy within 30s")
		case <-tick.C:
		}
	}
}

func kill9(t *testing.T, p *process) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	p.done <- nil // let Cleanup's receive return
}

func waitExit(t *testing.T, p *process, within time.Duration) error {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(within):
		t.Fatalf("process did not exit within %s", within)
		return nil
	}
}
