package httpapi

import (
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Accept back-off bounds: after a failed Accept (EMFILE, ENFILE, ENOBUFS,
// ECONNABORTED...) the listener waits acceptBackoffMin, doubling up to
// acceptBackoffMax, and tries again.
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

// ConnLimits bound the connections a listener hands to the server.
type ConnLimits struct {
	// MaxConns caps the open connections (0: no cap). agent-api's default
	// is 3/4 of the file-descriptor limit, see DefaultMaxConns.
	MaxConns int
	// MaxConnsPerAddr caps the open connections of one client IP address
	// (0: no cap).
	MaxConnsPerAddr int
	// Log gets a WARN line when accepting fails or connections are
	// refused, at most once a second each.
	Log *slog.Logger
}

// DefaultMaxConns is 3/4 of the process's file-descriptor limit, leaving
// the rest for PostgreSQL, Redis, files and the provider clients; 0 when
// the limit is unknown or unlimited.
func DefaultMaxConns() int {
	n := fdLimit()
	if n <= 0 {
		return 0
	}
	return max(1, int(n/4*3))
}

// DefaultMaxConnsPerAddr is the per-address cap used when none is
// configured: half of maxConns (so a flood from one address leaves room
// for every other client), at most 1024; 0 (no cap) when maxConns is 0.
func DefaultMaxConnsPerAddr(maxConns int) int {
	if maxConns <= 0 {
		return 0
	}
	return min(1024, max(1, maxConns/2))
}

// LimitListener wraps ln so that the server it feeds never stops on an
// accept error and never holds more connections than lim allows.
// Accept errors other than the listener being closed are retried with a
// back-off; a connection over a cap is closed at once (with a reset, so its
// descriptor is freed without waiting for the client) and Accept goes on.
func LimitListener(ln net.Listener, lim ConnLimits) *ConnLimitListener {
	if lim.Log == nil {
		lim.Log = slog.New(slog.DiscardHandler)
	}
	return &ConnLimitListener{Listener: ln, lim: lim, perAddr: map[string]int{}, closed: make(chan struct{})}
}

// ConnLimitListener is LimitListener's listener.
type ConnLimitListener struct {
	net.Listener
	lim ConnLimits

	open       atomic.Int64
	refused    atomic.Int64
	acceptErrs atomic.Int64

	// mu guards perAddr, open connections by client IP.
	mu      sync.Mutex
	perAddr map[string]int

	closeOnce sync.Once
	closed    chan struct{}

	// lastWarn throttles the WARN lines (unix nanoseconds).
	lastRefusedWarn atomic.Int64
	lastAcceptWarn  atomic.Int64
}

// Open is the number of connections handed out and not closed yet.
func (l *ConnLimitListener) Open() int64 { return l.open.Load() }

// Refused is the number of connections closed for being over a cap.
func (l *ConnLimitListener) Refused() int64 { return l.refused.Load() }

// AcceptErrors is the number of failed accepts that were retried.
func (l *ConnLimitListener) AcceptErrors() int64 { return l.acceptErrs.Load() }

// Close closes the listener; a pending Accept returns net.ErrClosed.
func (l *ConnLimitListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// Accept returns the next connection within the caps. It returns an error
// only once the listener is closed.
func (l *ConnLimitListener) Accept() (net.Conn, error) {
	backoff := time.Duration(0)
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil, err
			}
			select {
			case <-l.closed:
				return nil, net.ErrClosed
			default:
			}
			l.acceptErrs.Add(1)
			backoff = min(max(2*backoff, acceptBackoffMin), acceptBackoffMax)
			if throttle(&l.lastAcceptWarn) {
				l.lim.Log.Warn("accept failed; retrying", "err", err, "backoff", backoff.String(),
					"open_conns", l.open.Load())
			}
			t := time.NewTimer(backoff)
			select {
			case <-l.closed:
				t.Stop()
				return nil, net.ErrClosed
			case <-t.C:
			}
			continue
		}
		backoff = 0
		if conn, ok := l.admit(c); ok {
			return conn, nil
		}
	}
}

// admit counts c against the caps, or refuses it.
func (l *ConnLimitListener) admit(c net.Conn) (net.Conn, bool) {
	addr := remoteIP(c)
	if n := l.open.Add(1); l.lim.MaxConns > 0 && n > int64(l.lim.MaxConns) {
		l.open.Add(-1)
		l.refuse(c, "max_conns", addr)
		return nil, false
	}
	if l.lim.MaxConnsPerAddr > 0 {
		l.mu.Lock()
		over := l.perAddr[addr] >= l.lim.MaxConnsPerAddr
		if !over {
			l.perAddr[addr]++
		}
		l.mu.Unlock()
		if over {
			l.open.Add(-1)
			l.refuse(c, "max_conns_per_addr", addr)
			return nil, false
		}
	}
	return &limitedConn{Conn: c, l: l, addr: addr}, true
}

func (l *ConnLimitListener) refuse(c net.Conn, limit, addr string) {
	l.refused.Add(1)
	closeNow(c)
	if throttle(&l.lastRefusedWarn) {
		l.lim.Log.Warn("connection refused: over the cap", "limit", limit, "client", addr,
			"max_conns", l.lim.MaxConns, "max_conns_per_addr", l.lim.MaxConnsPerAddr, "refused_total", l.refused.Load())
	}
}

func (l *ConnLimitListener) release(addr string) {
	l.open.Add(-1)
	if l.lim.MaxConnsPerAddr > 0 {
		l.mu.Lock()
		if n := l.perAddr[addr] - 1; n > 0 {
			l.perAddr[addr] = n
		} else {
			delete(l.perAddr, addr)
		}
		l.mu.Unlock()
	}
}

// limitedConn gives its slot back when closed, once.
type limitedConn struct {
	net.Conn
	l    *ConnLimitListener
	addr string
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c.addr) })
	return err
}

// closeNow closes c without lingering: a refused connection's descriptor
// is freed at once, whatever the client still sends.
func closeNow(c net.Conn) {
	if lc, ok := c.(*lingerConn); ok {
		c = lc.TCPConn
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

func remoteIP(c net.Conn) string {
	a := c.RemoteAddr()
	if a == nil {
		return ""
	}
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// throttle reports whether a second passed since the last time it said
// yes for last.
func throttle(last *atomic.Int64) bool {
	now := time.Now().UnixNano()
	prev := last.Load()
	return now-prev >= int64(time.Second) && last.CompareAndSwap(prev, now)
}
