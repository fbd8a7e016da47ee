package httpapi

import (
	"io"
	"net"
	"time"
)

// Lingering close bounds: how long and how much a closing connection keeps
// reading what the client still sends.
const (
	lingerTimeout = 500 * time.Millisecond
	lingerBytes   = 4 << 20
)

// LingerListener wraps ln so that closing a connection first shuts down
// the write side and drains what the client is still sending, for a short
// while. Without it, a server that answers early (413 for a body over the
// limit) and closes with unread input makes the kernel send a reset, which
// can destroy the response before the client reads it.
func LingerListener(ln net.Listener) net.Listener { return lingerListener{ln} }

type lingerListener struct{ net.Listener }

func (l lingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		return &lingerConn{TCPConn: tc}, nil
	}
	return c, nil
}

type lingerConn struct{ *net.TCPConn }

func (c *lingerConn) Close() error {
	if err := c.TCPConn.CloseWrite(); err == nil {
		_ = c.TCPConn.SetReadDeadline(time.Now().Add(lingerTimeout))
		_, _ = io.CopyN(io.Discard, c.TCPConn, lingerBytes)
	}
	return c.TCPConn.Close()
}
