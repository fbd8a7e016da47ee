package console

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"
)

//go:embed assets
var files embed.FS

// ContentSecurityPolicy allows only the console's own scripts, styles and
// API calls: no inline script, no other origin, no framing.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// CacheControl makes browsers revalidate every asset (a 304 with the
// ETag), so a new binary's console is picked up at the next load.
const CacheControl = "no-cache"

// Asset is one embedded file, ready to serve.
type Asset struct {
	Name        string
	Body        []byte
	ContentType string
	// ETag is a strong validator: a hash of Body.
	ETag string
}

// contentTypes maps the extensions the console uses to media types.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".json": "application/json",
	".svg":  "image/svg+xml",
	".ico":  "image/x-icon",
	".png":  "image/png",
	".txt":  "text/plain; charset=utf-8",
}

// Assets are the embedded files by name relative to assets/ ("index.html",
// "js/app.js").
type Assets struct {
	byName map[string]Asset
}

// Load reads the embedded files. A file with an extension the console does
// not serve is an error, so a new kind of asset cannot go out with a wrong
// type.
func Load() (*Assets, error) {
	a := &Assets{byName: map[string]Asset{}}
	err := fs.WalkDir(files, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		ct, ok := contentTypes[path.Ext(p)]
		if !ok {
			return fmt.Errorf("console asset %s: no content type for %q", p, path.Ext(p))
		}
		sum := sha256.Sum256(body)
		name := strings.TrimPrefix(p, "assets/")
		a.byName[name] = Asset{Name: name, Body: body, ContentType: ct,
			ETag: `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, ok := a.byName["index.html"]; !ok {
		return nil, fmt.Errorf("console: assets/index.html is missing")
	}
	return a, nil
}

// Lookup returns the asset at a path below the console's root; "" is the
// index page.
func (a *Assets) Lookup(name string) (Asset, bool) {
	if name == "" {
		name = "index.html"
	}
	if !fs.ValidPath(name) {
		return Asset{}, false
	}
	as, ok := a.byName[name]
	return as, ok
}

// Names lists every asset, sorted.
func (a *Assets) Names() []string {
	out := make([]string, 0, len(a.byName))
	for n := range a.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Handler serves the asset named by the route's wildcard (GET /console/*)
// with its content type, an ETag (If-None-Match gives 304), no-cache and
// the security headers. An unknown asset is fiber.ErrNotFound, which the
// API's error handler turns into its JSON 404.
func (a *Assets) Handler() fiber.Handler {
	return func(c *fiber.Ctx) error {
		as, ok := a.Lookup(c.Params("*"))
		if !ok {
			return fiber.ErrNotFound
		}
		SecurityHeaders(c)
		c.Set(fiber.HeaderCacheControl, CacheControl)
		c.Set(fiber.HeaderETag, as.ETag)
		if etagMatch(c.Get(fiber.HeaderIfNoneMatch), as.ETag) {
			return c.SendStatus(fiber.StatusNotModified)
		}
		c.Set(fiber.HeaderContentType, as.ContentType)
		return c.Send(as.Body)
	}
}

// SecurityHeaders sets the CSP and the headers that keep the console out
// of frames and stop type sniffing.
func SecurityHeaders(c *fiber.Ctx) {
	c.Set(fiber.HeaderContentSecurityPolicy, ContentSecurityPolicy)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
}

// etagMatch reports whether an If-None-Match header names etag (or is *).
func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}
