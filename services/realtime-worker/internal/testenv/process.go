package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mithub/mithub/pkg/syncbuf"
)

// Process is a started child process with its output kept in memory.
type Process struct {
	cmd  *exec.Cmd
	out  *syncbuf.Buffer
	done chan struct{}
	err  error
}

// startProcess runs bin with args and extra environment.
func startProcess(bin string, env []string, args ...string) (*Process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	out := &syncbuf.Buffer{Max: 4 << 20}
	cmd.Stdout, cmd.Stderr = out, out
	// Own process group, so a stop reaches nothing else.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", filepath.Base(bin), err)
	}
	p := &Process{cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Output is what the process printed so far.
func (p *Process) Output() string { return p.out.String() }

// Exited is closed when the process ends.
func (p *Process) Exited() <-chan struct{} { return p.done }

// Stop sends SIGTERM, waits up to grace, then kills.
func (p *Process) Stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// Kill ends the process at once.
func (p *Process) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// FreePort returns a TCP port that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// FreeUDPPort returns a UDP port that was free a moment ago.
func FreeUDPPort() (int, error) {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port, nil
}

// waitHTTP polls url until it answers below 500, the process exits or ctx
// ends.
func waitHTTP(ctx context.Context, url string, p *Process) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
		}
		select {
		case <-p.done:
			return fmt.Errorf("process exited before %s answered (%v): %s", url, p.err, tail(p.Output()))
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer: %w: %s", url, ctx.Err(), tail(p.Output()))
		case <-tick.C:
		}
	}
}

func tail(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}

// RepoRoot is the repository's root directory, found from this file.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	// file is <repo>/services/realtime-worker/internal/testenv/process.go.
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", "..", ".."))
}

// ErrNoLiveKit: no livekit-server binary is configured or can be built.
var ErrNoLiveKit = errors.New("no livekit-server binary")

// LiveKitBinary returns MITHUB_TEST_LIVEKIT_BIN, or builds the server with
// scripts/livekit.sh (cached outside the repository after the first
// build). MITHUB_TEST_LIVEKIT_BUILD=0 turns the build off: then a missing
// variable is ErrNoLiveKit.
func LiveKitBinary() (string, error) {
	if bin := os.Getenv("MITHUB_TEST_LIVEKIT_BIN"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("MITHUB_TEST_LIVEKIT_BIN: %w", err)
		}
		return bin, nil
	}
	if os.Getenv("MITHUB_TEST_LIVEKIT_BUILD") == "0" {
		return "", fmt.Errorf("%w: MITHUB_TEST_LIVEKIT_BIN is unset and MITHUB_TEST_LIVEKIT_BUILD=0", ErrNoLiveKit)
	}
	liveKitBuild.once.Do(func() {
		out, err := exec.Command("bash", filepath.Join(RepoRoot(), "scripts", "livekit.sh")).Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				err = fmt.Errorf("%w: %s", err, ee.Stderr)
			}
			liveKitBuild.err = fmt.Errorf("%w: scripts/livekit.sh: %v", ErrNoLiveKit, err)
			return
		}
		liveKitBuild.bin = strings.TrimSpace(string(out))
	})
	return liveKitBuild.bin, liveKitBuild.err
}

var liveKitBuild struct {
	once sync.Once
	bin  string
	err  error
}
