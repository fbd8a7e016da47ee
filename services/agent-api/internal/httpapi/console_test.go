package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// getRaw requests path without following redirects.
func (h *harness) getRaw(method, path string, header ...string) (*http.Response, string) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.base+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestConsoleRedirects(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	for _, p := range []string{"/", "/console"} {
		resp, _ := h.getRaw(http.MethodGet, p)
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/console/" {
			t.Errorf("GET %s: %d Location %q", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

func TestConsoleServesAssets(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	tests := []struct {
		give     string
		wantType string
		wantBody string
	}{
		{"/console/", "text/html; charset=utf-8", `<main id="main"`},
		{"/console/index.html", "text/html; charset=utf-8", `<script type="module" src="/console/js/app.js">`},
		{"/console/app.css", "text/css; charset=utf-8", ":focus-visible"},
		{"/console/js/app.js", "text/javascript; charset=utf-8", "import "},
		{"/console/js/views/meeting.js", "text/javascript; charset=utf-8", "/events?after_seq="},
		{"/console/favicon.svg", "image/svg+xml", "<svg"},
	}
	for _, tt := range tests {
		resp, body := h.getRaw(http.MethodGet, tt.give)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != tt.wantType || !strings.Contains(body, tt.wantBody) {
			t.Errorf("GET %s: %d %q, body has %q: %v", tt.give, resp.StatusCode, resp.Header.Get("Content-Type"), tt.wantBody, strings.Contains(body, tt.wantBody))
			continue
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("GET %s: CSP %q", tt.give, csp)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "no-cache" || resp.Header.Get("ETag") == "" {
			t.Errorf("GET %s: headers %v", tt.give, resp.Header)
		}
		// A revalidation with the ETag is a bodiless 304.
		again, body := h.getRaw(http.MethodGet, tt.give, "If-None-Match", resp.Header.Get("ETag"))
		if again.StatusCode != http.StatusNotModified || body != "" {
			t.Errorf("GET %s with its ETag: %d, %d bytes", tt.give, again.StatusCode, len(body))
		}
	}
	// The page is UTF-8 and declares it; Korean typed into it survives.
	_, body := h.getRaw(http.MethodGet, "/console/")
	if !strings.Contains(body, `<meta charset="utf-8">`) || !strings.Contains(body, `<html lang="en">`) {
		t.Errorf("index.html lacks its charset or language")
	}
}

func TestConsoleUnknownAssetsAreJSON404(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	for _, p := range []string{"/console/nope.js", "/console/js/", "/console/%2e%2e/events.go", "/console/js/..%2f..%2fconsole.go", "/console/*", "/consolex"} {
		r := h.do(http.MethodGet, p, "", nil)
		if r.status != http.StatusNotFound || !strings.Contains(string(r.body), `"not_found"`) {
			t.Errorf("GET %s: %d %s", p, r.status, r.body)
		}
	}
	// Other methods are not served.
	if r := h.do(http.MethodPost, "/console/index.html", "", []byte(`{}`)); r.status < 400 || r.status >= 500 {
		t.Errorf("POST /console/index.html: %d", r.status)
	}
}
