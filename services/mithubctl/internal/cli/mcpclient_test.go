package cli

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/mcpserver"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// TestMCPRetryPolicyIsBounded: the meeting tools' client gives up on an
// unreachable agent-api within mcpAPIBudget, about 2 s, not the default
// minute.
func TestMCPRetryPolicyIsBounded(t *testing.T) {
	p := mcpRetryPolicy()
	if mcpAPIBudget > 2*time.Second || p.MaxElapsedTime != mcpAPIBudget || p.MaxInterval >= mcpAPIBudget || p.MaxAttempts != 0 {
		t.Errorf("policy %+v with budget %s: want retries bounded by a budget of at most 2s", p, mcpAPIBudget)
	}
	if hc := mcpHTTPClient(); hc.Timeout <= mcpAPIBudget || hc.Transport.(*http.Transport).TLSHandshakeTimeout != mcpAPIBudget {
		t.Errorf("http client: timeout %s, TLS handshake %s; want the budget for connecting only",
			hc.Timeout, hc.Transport.(*http.Transport).TLSHandshakeTimeout)
	}
}

// noMemory is a Memory the meeting tools never touch.
type noMemory struct{ mcpserver.Memory }

// TestMCPMeetingToolAgentAPIDown: with agent-api down, a meeting tool
// answers a tool error naming agent-api's URL, after the refused
// connection was retried (and the retries reported on stderr).
func TestMCPMeetingToolAgentAPIDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	var stderr bytes.Buffer
	e := &cmdline.Env{Program: "mithubctl", Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: func(string) string { return "" }}
	srv, err := mcpserver.New(mcpserver.Options{TenantID: "t", Memory: noMemory{},
		Meetings: mcpMeetingsClient(e, cmdline.APIConfig{URL: url, Key: "k"})})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "meeting_list", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("protocol error %v, want a tool error", err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if !res.IsError || !strings.Contains(text.String(), url) || !strings.Contains(text.String(), "connection refused") {
		t.Errorf("IsError %v, text %q; want a refused connection to %s", res.IsError, text.String(), url)
	}
	if !strings.Contains(stderr.String(), "attempt 1 failed") {
		t.Errorf("no retry reported on stderr: %q", stderr.String())
	}
	t.Logf("tool error: %s", text.String())
}
