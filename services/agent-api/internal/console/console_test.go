package console_test

import (
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/mithub/mithub/services/agent-api/internal/console"
)

func load(t *testing.T) *console.Assets {
	t.Helper()
	a, err := console.Load()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

var (
	// src="/console/app.css", href="/console/favicon.svg"
	htmlRef = regexp.MustCompile(`(?:src|href)="/console/([^"]+)"`)
	// import { x } from './api.js'; import './x.js'
	jsImport = regexp.MustCompile(`(?m)^\s*(?:import|export)\b[^'"]*?['"](\.{1,2}/[^'"]+)['"]`)
)

// There is no build step: every file the page or a module refers to must
// be embedded, or the console breaks in the browser only.
func TestEveryReferencedAssetIsEmbedded(t *testing.T) {
	a := load(t)
	refs := 0
	for _, name := range a.Names() {
		as, _ := a.Lookup(name)
		body := string(as.Body)
		var targets []string
		switch path.Ext(name) {
		case ".html":
			for _, m := range htmlRef.FindAllStringSubmatch(body, -1) {
				targets = append(targets, m[1])
			}
		case ".js":
			for _, m := range jsImport.FindAllStringSubmatch(body, -1) {
				targets = append(targets, path.Join(path.Dir(name), m[1]))
			}
		}
		for _, target := range targets {
			refs++
			if _, ok := a.Lookup(target); !ok {
				t.Errorf("%s refers to %s, which is not embedded", name, target)
			}
		}
	}
	if refs < 10 {
		t.Fatalf("found only %d references; the patterns no longer match the assets", refs)
	}
}

// The CSP allows no inline script or style attribute, and API text must
// never be parsed as HTML.
func TestAssetsKeepToTheContentSecurityPolicy(t *testing.T) {
	a := load(t)
	inlineScript := regexp.MustCompile(`<script(?:\s[^>]*)?>`)
	for _, name := range a.Names() {
		as, _ := a.Lookup(name)
		body := string(as.Body)
		switch path.Ext(name) {
		case ".html":
			for _, tag := range inlineScript.FindAllString(body, -1) {
				if !strings.Contains(tag, `src="/console/`) {
					t.Errorf("%s has an inline script: %s", name, tag)
				}
			}
			if regexp.MustCompile(`\s(style|on[a-z]+)=`).MatchString(body) {
				t.Errorf("%s has an inline style or event handler attribute", name)
			}
		case ".js":
			for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setAttribute('style'"} {
				if strings.Contains(body, bad) {
					t.Errorf("%s uses %s", name, bad)
				}
			}
		}
	}
}

func TestLookup(t *testing.T) {
	a := load(t)
	tests := []struct {
		give     string
		wantOK   bool
		wantType string
	}{
		{"", true, "text/html; charset=utf-8"},
		{"index.html", true, "text/html; charset=utf-8"},
		{"app.css", true, "text/css; charset=utf-8"},
		{"js/app.js", true, "text/javascript; charset=utf-8"},
		{"favicon.svg", true, "image/svg+xml"},
		{"js/missing.js", false, ""},
		{"../console.go", false, ""},
		{"js/../app.css", false, ""},
		{"/index.html", false, ""},
		{"js", false, ""},
	}
	for _, tt := range tests {
		as, ok := a.Lookup(tt.give)
		if ok != tt.wantOK || as.ContentType != tt.wantType {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tt.give, as.ContentType, ok, tt.wantType, tt.wantOK)
		}
		if ok && (len(as.Body) == 0 || len(as.ETag) < 10) {
			t.Errorf("Lookup(%q): empty body or ETag %q", tt.give, as.ETag)
		}
	}
}
