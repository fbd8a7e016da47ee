package syncbuf_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/syncbuf"
)

// Concurrent writers lose nothing, and reads see whole writes.
func TestConcurrentWrites(t *testing.T) {
	var b syncbuf.Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("line\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if n := strings.Count(b.String(), "line\n"); n != 800 {
		t.Fatalf("%d lines, want 800", n)
	}
}
