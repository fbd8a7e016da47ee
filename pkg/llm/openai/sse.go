package openai

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mithub/mithub/pkg/llm"
)

// maxSSELine caps one line of an event stream.
const maxSSELine = 4 << 20

// sseReader reads the data of server-sent events: the data lines of an
// event joined with newlines, dispatched at a blank line (or at the end of
// the stream). Comments and other fields are skipped.
type sseReader struct {
	r   *bufio.Reader
	eof bool
}

func newLineReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 64<<10) }

// next returns the next event's data, or io.EOF after the last one. onLine
// is called for every line read.
func (s *sseReader) next(onLine func()) (string, error) {
	var data strings.Builder
	has := false
	for !s.eof {
		line, err := s.readLine()
		switch {
		case errors.Is(err, io.EOF):
			s.eof = true
		case err != nil:
			return "", err
		}
		onLine()
		if line == "" {
			if has {
				return data.String(), nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		if field != "data" {
			continue
		}
		if has {
			data.WriteByte('\n')
		}
		data.WriteString(strings.TrimPrefix(value, " "))
		has = true
	}
	if has {
		return data.String(), nil
	}
	return "", io.EOF
}

// readLine returns one line without its line ending.
func (s *sseReader) readLine() (string, error) {
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxSSELine {
			return "", fmt.Errorf("%w: event stream line longer than %d bytes", llm.ErrBadResponse, maxSSELine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line := strings.TrimSuffix(strings.TrimSuffix(string(buf), "\n"), "\r")
		return line, err
	}
}
