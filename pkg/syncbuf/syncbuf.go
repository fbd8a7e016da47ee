// Package syncbuf is a byte buffer that may be written and read from
// several goroutines at once: for capturing the output of a process or a
// logger while it still runs.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer behind a mutex. The zero value is ready.
type Buffer struct {
	// Max, when positive, bounds the buffer: what is written past Max
	// bytes is dropped (and reported written), for chatty processes.
	Max int

	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p, or as much of it as Max leaves room for.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.Max > 0 && b.buf.Len()+len(p) > b.Max {
		b.buf.Write(p[:max(b.Max-b.buf.Len(), 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
