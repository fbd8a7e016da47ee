package httpapi_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/services/agent-api/internal/httpapi"
)

// serveLimited serves a /healthz-only Fiber app on a loopback listener
// wrapped like agent-api's and returns its address and listener.
func serveLimited(t *testing.T, lim httpapi.ConnLimits) (string, *httpapi.ConnLimitListener) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ll := httpapi.LimitListener(httpapi.LingerListener(ln), lim)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/healthz", func(c *fiber.Ctx) error { return c.SendString("ok") })
	done := make(chan error, 1)
	go func() { done <- app.Listener(ll) }()
	t.Cleanup(func() {
		_ = app.Shutdown()
		if err := <-done; err != nil && !errors.Is(err, net.ErrClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return ln.Addr().String(), ll
}

// dialFrom opens a TCP connection to addr from the loopback address src.
func dialFrom(t *testing.T, src, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", src, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// healthz asks /healthz on a fresh connection from src.
func healthz(t *testing.T, src, addr string) error {
	t.Helper()
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}).DialContext, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("http://" + addr + "/healthz")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "ok" {
		return fmt.Errorf("healthz: %d %q", resp.StatusCode, body)
	}
	return nil
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// refused dials addr from src and reports whether the server closed the
// connection at once: the dial or a read fails with a reset or EOF instead
// of timing out.
func refused(t *testing.T, src, addr string) bool {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.ECONNRESET) {
			return true
		}
		t.Fatalf("dial from %s: %v", src, err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err = c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// One client address opening connections past its cap gets the extra ones
// closed at once; another address still gets /healthz answered, and the
// flooding address gets its slots back as its connections close.
func TestConnLimitPerAddress(t *testing.T) {
	const perAddr = 5
	addr, ll := serveLimited(t, httpapi.ConnLimits{MaxConns: 100, MaxConnsPerAddr: perAddr})
	var flood []net.Conn
	for range perAddr {
		c := dialFrom(t, "127.0.0.2", addr)
		// A partial request keeps the connection busy, as in the attack.
		_, _ = c.Write([]byte("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab"))
		flood = append(flood, c)
	}
	waitFor(t, "the flood's connections to be accepted", func() bool { return ll.Open() == perAddr })
	for i := range 20 {
		if !refused(t, "127.0.0.2", addr) {
			t.Fatalf("connection %d past the per-address cap was kept open", perAddr+i+1)
		}
	}
	if got := ll.Refused(); got != 20 {
		t.Errorf("refused = %d, want 20", got)
	}
	if err := healthz(t, "127.0.0.1", addr); err != nil {
		t.Fatalf("another address during the flood: %v", err)
	}
	for _, c := range flood {
		_ = c.Close()
	}
	waitFor(t, "the flood's slots to be released", func() bool { return ll.Open() == 0 })
	if err := healthz(t, "127.0.0.2", addr); err != nil {
		t.Fatalf("the flooding address after its connections closed: %v", err)
	}
}

// Past the global cap every new connection is closed at once, and the
// server answers again as soon as connections close.
func TestConnLimitGlobal(t *testing.T) {
	const maxConns = 8
	addr, ll := serveLimited(t, httpapi.ConnLimits{MaxConns: maxConns})
	var held []net.Conn
	for range maxConns {
		held = append(held, dialFrom(t, "127.0.0.3", addr))
	}
	waitFor(t, "the connections to be accepted", func() bool { return ll.Open() == maxConns })
	if !refused(t, "127.0.0.4", addr) {
		t.Fatal("a connection past the global cap was kept open")
	}
	_ = held[0].Close()
	waitFor(t, "a slot to be released", func() bool { return ll.Open() == maxConns-1 })
	if err := healthz(t, "127.0.0.4", addr); err != nil {
		t.Fatalf("healthz after a slot was released: %v", err)
	}
}

// flakyListener fails its first accepts with errors the kernel returns at
// the descriptor limit, then accepts from the real listener.
type flakyListener struct {
	net.Listener
	fails atomic.Int32
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	return l.Listener.Accept()
}

// Accept errors that are not timeouts (fasthttp stops serving on those) are
// retried: the server keeps answering after a run of EMFILE.
func TestAcceptErrorsDoNotStopServing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &flakyListener{Listener: ln}
	fl.fails.Store(6)
	ll := httpapi.LimitListener(fl, httpapi.ConnLimits{})
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/healthz", func(c *fiber.Ctx) error { return c.SendString("ok") })
	done := make(chan error, 1)
	go func() { done <- app.Listener(ll) }()
	if err := healthz(t, "127.0.0.1", ln.Addr().String()); err != nil {
		t.Fatalf("after accept errors: %v", err)
	}
	if got := ll.AcceptErrors(); got != 6 {
		t.Errorf("accept errors retried = %d, want 6", got)
	}
	select {
	case err := <-done:
		t.Fatalf("serve returned: %v", err)
	default:
	}
	_ = app.Shutdown()
	if err := <-done; err != nil && !errors.Is(err, net.ErrClosed) {
		t.Errorf("serve after shutdown: %v", err)
	}
}

// Closing the listener while Accept backs off ends Accept with
// net.ErrClosed (shutdown does not hang on a failing listener).
func TestAcceptBackoffEndsOnClose(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &flakyListener{Listener: ln}
	fl.fails.Store(1 << 30)
	ll := httpapi.LimitListener(fl, httpapi.ConnLimits{})
	errc := make(chan error, 1)
	go func() { _, err := ll.Accept(); errc <- err }()
	waitFor(t, "a retried accept error", func() bool { return ll.AcceptErrors() >= 3 })
	_ = ll.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Accept after Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept did not return after Close")
	}
}

// One address's default share must leave slots for every other client:
// a per-address default at or above the global cap lets a single-source
// flood take every connection, health checks included.
func TestDefaultMaxConnsPerAddrLeavesRoom(t *testing.T) {
	for _, tc := range []struct{ global, want int }{
		{0, 0}, {1, 1}, {2, 1}, {768, 384}, {2048, 1024}, {786432, 1024},
	} {
		got := httpapi.DefaultMaxConnsPerAddr(tc.global)
		if got != tc.want {
			t.Errorf("DefaultMaxConnsPerAddr(%d) = %d, want %d", tc.global, got, tc.want)
		}
		if tc.global > 1 && got >= tc.global {
			t.Errorf("DefaultMaxConnsPerAddr(%d) = %d leaves no room for other addresses", tc.global, got)
		}
	}
}
