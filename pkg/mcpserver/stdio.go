package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one JSON-RPC message on the stdio transport.
const MaxLineBytes = mcp.DefaultMaxLineLength

// JSON-RPC error codes the stdio transport answers itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// NewStdioTransport returns the transport `mithubctl mcp` serves on: one
// JSON-RPC message per line of in, answers on out. The SDK's own stdio
// transport ends the session at the first line it cannot decode; this one
// answers such a line itself, with a parse error (-32700) for a line that
// is not JSON or is longer than MaxLineBytes and an invalid request
// (-32600) for JSON that is not a JSON-RPC message (batches included:
// MCP has none since 2025-06-18), and keeps serving (docs/architecture.md
// §7). Blank lines are skipped.
func NewStdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go func() { _ = pw.CloseWithError(filterLines(in, pw, w)) }()
	// The filter bounds each line already; the SDK's own cap counts the
	// bytes its decoder reads ahead, which can belong to the next line.
	return &mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: -1}
}

// lockedWriter writes each message in one piece: the SDK writes a message
// with one Write call, and so do the transport's own answers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// filterLines copies the decodable lines of in to pass and answers the
// rest on out, until in ends (nil at EOF).
func filterLines(in io.Reader, pass io.Writer, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, MaxLineBytes)
		if len(line) > 0 || tooLong {
			if msg, ok := checkLine(line, tooLong); ok {
				if _, werr := pass.Write(append(line, '\n')); werr != nil {
					return werr
				}
			} else if _, werr := out.Write(msg); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine returns the next line without its end and surrounding space;
// tooLong reports a line over limit bytes (then line is empty: the rest
// of it was skipped).
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		switch {
		case tooLong:
		case len(line)+len(frag) > limit+2: // room for "\r\n"
			tooLong, line = true, nil
		default:
			line = append(line, frag...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(line), tooLong, err
	}
}

// checkLine says whether the SDK can decode line; when it cannot, it
// returns the error response to send instead.
func checkLine(line []byte, tooLong bool) ([]byte, bool) {
	switch {
	case tooLong:
		return errorResponse(nil, codeParseError, fmt.Sprintf("Parse error: message longer than %d bytes", MaxLineBytes)), false
	case !json.Valid(line):
		return errorResponse(nil, codeParseError, "Parse error: not JSON"), false
	case line[0] == '[':
		return errorResponse(nil, codeInvalidRequest, "Invalid Request: batches are not supported"), false
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return errorResponse(requestID(line), codeInvalidRequest, "Invalid Request: "+err.Error()), false
	}
	return nil, true
}

// requestID returns the id of a JSON object when it is a string or a
// number, else nil (null).
func requestID(line []byte) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &v) != nil || len(v.ID) == 0 {
		return nil
	}
	switch v.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return v.ID
	}
	return nil
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type errorMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   wireError       `json:"error"`
}

func errorResponse(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(errorMessage{JSONRPC: "2.0", ID: id, Error: wireError{Code: code, Message: message}})
	return append(b, '\n')
}
