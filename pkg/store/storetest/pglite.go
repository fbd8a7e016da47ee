package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/syncbuf"
)

// PGliteMaxConns is the pool size for a store on PGlite. PGlite is one
// single-user backend and scripts/pglite/server.mjs admits one client
// connection at a time (the others wait), so a pool must not hold more.
const PGliteMaxConns = 1

// pgliteStartTimeout bounds the wait for server.mjs to accept connections.
// Booting the PGlite WebAssembly backend takes seconds, and much longer on
// a loaded machine.
const pgliteStartTimeout = 3 * time.Minute

// PGliteDir returns scripts/pglite: MITHUB_PGLITE_DIR when set, otherwise
// the directory next to this source file's module.
func PGliteDir() string {
	if dir := os.Getenv("MITHUB_PGLITE_DIR"); dir != "" {
		return dir
	}
	_, file, _, _ := runtime.Caller(0)
	// file is <repo>/pkg/store/storetest/pglite.go.
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "scripts", "pglite")
}

var npmInstall struct {
	once sync.Once
	err  error
}

// StartPGlite starts an in-memory PostgreSQL with pgvector (PGlite, through
// scripts/pglite/server.mjs on Node.js) on a free 127.0.0.1 port, waits
// until it accepts connections and returns its DSN; the server is stopped
// when the test ends. The first call in a process installs the pinned npm
// packages when scripts/pglite/node_modules is missing. Without node and
// npm the test fails with how to install them.
//
// Each server is a private database: PGlite ignores startup parameters
// such as search_path, so there are no per-test schemas. Serve one pool of
// PGliteMaxConns from it (see NewPGlite). PGlite has no COPY FROM STDIN.
func StartPGlite(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found: the pgvector store tests run PostgreSQL with pgvector in PGlite on Node.js 20+. "+
			"Install Node.js and npm (Debian: apt-get install nodejs npm; or https://nodejs.org), then re-run: %v", err)
	}
	dir := PGliteDir()
	npmInstall.once.Do(func() { npmInstall.err = installPGlite(dir) })
	if npmInstall.err != nil {
		t.Fatalf("install scripts/pglite packages: %v", npmInstall.err)
	}

	cmd := exec.Command(node, "server.mjs", "--port", "0", "--exit-with-stdin")
	cmd.Dir = dir
	// server.mjs exits when its stdin closes, so it dies with this process
	// even when the test binary is killed.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	cmd.Stdout = &readyWatcher{ready: ready}
	stderr := &syncbuf.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s server.mjs: %v", node, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		// The database is in memory: nothing to shut down gracefully.
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		<-exited
	})

	deadline := time.NewTimer(pgliteStartTimeout)
	defer deadline.Stop()
	var dsn string
	select {
	case dsn = <-ready:
	case <-exited:
		t.Fatalf("server.mjs exited before it was ready (%v): %s", waitErr, stderr.String())
	case <-deadline.C:
		t.Fatalf("server.mjs not ready after %s: %s", pgliteStartTimeout, stderr.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), pgliteStartTimeout)
	defer cancel()
	if err := waitAccepting(ctx, dsn); err != nil {
		t.Fatalf("PGlite at %s: %v; server stderr: %s", dsn, err, stderr.String())
	}
	return dsn
}

// waitAccepting connects until a query succeeds or ctx ends.
func waitAccepting(ctx context.Context, dsn string) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, err := pgx.Connect(ctx, dsn)
		if err == nil {
			err = conn.Ping(ctx)
			_ = conn.Close(context.Background())
			if err == nil {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not accepting connections: %w", errors.Join(err, ctx.Err()))
		case <-tick.C:
		}
	}
}

// installPGlite runs npm ci in dir unless node_modules matches
// package-lock.json. An exclusive lock on a file in dir makes parallel test
// binaries take turns, and the later ones find the work done.
func installPGlite(dir string) error {
	if pgliteInstalled(dir) {
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("npm not found (install Node.js 20+ with npm: apt-get install nodejs npm): %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".npm-install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
	if pgliteInstalled(dir) {
		return nil
	}
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("npm ci in %s: %w\n%s", dir, err, out)
	}
	return nil
}

// pgliteInstalled: npm writes node_modules/.package-lock.json when an
// install completes; one older than package-lock.json is stale.
func pgliteInstalled(dir string) bool {
	done, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err != nil {
		return false
	}
	want, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	return err == nil && !want.ModTime().After(done.ModTime())
}

// OpenPGlite opens a migrated store of PGliteMaxConns connections on a
// StartPGlite server. Close it before opening another on the same server:
// the server serves one connection at a time.
func OpenPGlite(t testing.TB, dsn string) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, dsn, store.Options{MaxConns: PGliteMaxConns})
	if err != nil {
		t.Fatalf("open store on PGlite: %v", err)
	}
	t.Cleanup(s.Close)
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate on PGlite: %v", err)
	}
	return s
}

// NewPGlite returns a store on a fresh PGlite server, migrated and with
// pgvector enabled for embeddings of dimension dim.
func NewPGlite(t testing.TB, dim int) *store.Store {
	t.Helper()
	s := OpenPGlite(t, StartPGlite(t))
	enabled, err := s.EnableVectors(context.Background(), dim)
	if err != nil {
		t.Fatalf("enable vectors on PGlite: %v", err)
	}
	if !enabled {
		t.Fatalf("PGlite started without the vector extension")
	}
	return s
}

// readyWatcher takes the server's stdout and delivers the DSN of its ready
// line once.
type readyWatcher struct {
	ready chan<- string
	line  []byte
	done  bool
}

func (w *readyWatcher) Write(p []byte) (int, error) {
	if w.done {
		return len(p), nil
	}
	w.line = append(w.line, p...)
	for {
		i := bytes.IndexByte(w.line, '\n')
		if i < 0 {
			return len(p), nil
		}
		if dsn, ok := strings.CutPrefix(string(w.line[:i]), "pglite ready "); ok {
			w.ready <- strings.TrimSpace(dsn)
			w.done, w.line = true, nil
			return len(p), nil
		}
		w.line = w.line[i+1:]
	}
}
