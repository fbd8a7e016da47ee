package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/mcpserver"
)

// The stdio transport answers lines it cannot decode with a JSON-RPC
// error and goes on serving the next ones.
func TestStdioSurvivesMalformedLines(t *testing.T) {
	f := newFixture(t)
	srv, err := mcpserver.New(mcpserver.Options{TenantID: f.tenant.ID, Memory: f.svc})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, mcpserver.NewStdioTransport(inR, outW)) }()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("the server did not stop")
		}
	})
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	send := func(line string) reply {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("write %q: %v", line, err)
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %q: %v", line, lines.Err())
		}
		var r reply
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			t.Fatalf("answer %q: %v", lines.Text(), err)
		}
		return r
	}
	for _, bad := range []struct {
		line, id string
		code     int
	}{
		{"this is not json", "null", -32700},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"`, "null", -32700},
		{`{"jsonrpc":"2.0","id":1} {"x":2}`, "null", -32700},
		{strings.Repeat("x", mcpserver.MaxLineBytes+10), "null", -32700},
		{`{"hello":"world"}`, "null", -32600},
		{`[]`, "null", -32600},
		{`42`, "null", -32600},
		{`{"jsonrpc":"1.0","id":"7","method":"ping"}`, `"7"`, -32600},
	} {
		r := send(bad.line)
		if r.Error == nil || r.Error.Code != bad.code || string(r.ID) != bad.id {
			t.Errorf("%.40q: answer %+v, want error %d with id %s", bad.line, r, bad.code, bad.id)
		}
	}
	r := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r.Error != nil || string(r.ID) != "1" || !strings.Contains(string(r.Result), `"mithub"`) {
		t.Fatalf("initialize after bad lines: %+v %s", r, r.Result)
	}
	if _, err := io.WriteString(inW, "\n"+`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if r := send("garbage between requests"); r.Error == nil || r.Error.Code != -32700 {
		t.Errorf("garbage after initialize: %+v", r)
	}
	r = send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if r.Error != nil || string(r.ID) != "2" || !strings.Contains(string(r.Result), "memory_add_message") {
		t.Fatalf("tools/list: %+v %s", r, r.Result)
	}
}
