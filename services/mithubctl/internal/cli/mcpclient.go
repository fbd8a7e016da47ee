package cli

import (
	"net"
	"net/http"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

// mcpAPIBudget bounds how long a meeting tool waits for agent-api to be
// reachable: connecting, and retrying refused connections and 429, 502,
// 503 and 504 answers. An agent calling a tool while agent-api is down
// hears so, with the URL, within about this long rather than after a
// minute of retries. An answer already streaming is not cut by it.
const mcpAPIBudget = 2 * time.Second

// mcpRetryPolicy retries within mcpAPIBudget only: no retry starts that
// would end after it, and a Retry-After longer than the budget ends the
// call.
func mcpRetryPolicy() apiclient.RetryPolicy {
	return apiclient.RetryPolicy{
		InitialInterval: 100 * time.Millisecond,
		MaxInterval:     500 * time.Millisecond,
		Multiplier:      2,
		Jitter:          0.5,
		MaxElapsedTime:  mcpAPIBudget,
	}
}

// mcpHTTPClient dials agent-api within mcpAPIBudget, so an address that
// drops packets fails as fast as a closed port; a request that connected
// keeps apiclient's 30 s bound.
func mcpHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: mcpAPIBudget, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = mcpAPIBudget
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// mcpMeetingsClient is the agent-api client behind the MCP meeting tools.
func mcpMeetingsClient(e *cmdline.Env, api cmdline.APIConfig) *apiclient.Client {
	return api.Client(e, apiclient.WithRetryPolicy(mcpRetryPolicy()), apiclient.WithHTTPClient(mcpHTTPClient()))
}
