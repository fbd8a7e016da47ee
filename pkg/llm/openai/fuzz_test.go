package openai

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzSSEReader reads fuzzed chat-completion event streams: reading ends
// with io.EOF or a bounded-line error, and a data event appended after the
// fuzzed stream comes back exactly.
func FuzzSSEReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, stream []byte, data string) {
		r := &sseReader{r: newLineReader(bytes.NewReader(stream))}
		for i := 0; ; i++ {
			_, err := r.next(func() {})
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return
			}
			if i > len(stream) {
				t.Fatalf("more events than bytes in %q", stream)
			}
		}
		if strings.Contains(data, "\r") {
			return
		}
		var b bytes.Buffer
		b.Write(stream)
		b.WriteString("\n\n")
		for _, line := range strings.Split(data, "\n") {
			b.WriteString("data: " + line + "\n")
		}
		b.WriteString("\n")
		r = &sseReader{r: newLineReader(&b)}
		var last string
		for {
			ev, err := r.next(func() {})
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("next: %v", err)
			}
			last = ev
		}
		if last != data {
			t.Fatalf("last event %q, want %q", last, data)
		}
	})
}
