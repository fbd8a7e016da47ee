package logging

import (
	"log/slog"
	"regexp"
	"strings"
)

// Redacted replaces a secret in logs.
const Redacted = "[redacted]"

var (
	// urlPassword matches the password of scheme://user:password@host.
	urlPassword = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)[^@\s]*@`)
	// dsnPassword matches password=... in a key/value connection string.
	dsnPassword = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s'][^\s]*)`)
	// bearer matches an Authorization header value.
	bearer = regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]+`)
)

// Redact removes the passwords of URLs (postgres://user:pw@host,
// redis://:pw@host), password=... pairs of key/value connection strings and
// bearer tokens from s.
func Redact(s string) string {
	lower := strings.ToLower(s)
	if strings.Contains(s, "://") {
		s = urlPassword.ReplaceAllString(s, "${1}"+Redacted+"@")
	}
	if strings.Contains(lower, "password") {
		s = dsnPassword.ReplaceAllString(s, "${1}"+Redacted)
	}
	if strings.Contains(lower, "bearer") {
		s = bearer.ReplaceAllString(s, "${1}"+Redacted)
	}
	return s
}

// secretKey reports whether an attribute key names a secret.
func secretKey(key string) bool {
	k := strings.ToLower(key)
	switch k {
	case "key", "token", "authorization", "dsn":
		return true
	}
	for _, suffix := range []string{"secret", "password", "api_key", "apikey", "_token", "_dsn"} {
		if strings.HasSuffix(k, suffix) {
			return true
		}
	}
	return false
}

// redactAttr is the ReplaceAttr of New: values under secret keys become
// Redacted, and strings and errors lose embedded passwords.
func redactAttr(_ []string, a slog.Attr) slog.Attr {
	if secretKey(a.Key) && !a.Value.Equal(slog.StringValue("")) {
		return slog.String(a.Key, Redacted)
	}
	switch a.Value.Kind() {
	case slog.KindString:
		if s := a.Value.String(); s != "" {
			if r := Redact(s); r != s {
				return slog.String(a.Key, r)
			}
		}
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok && err != nil {
			if s, r := err.Error(), Redact(err.Error()); r != s {
				return slog.String(a.Key, r)
			}
		}
	}
	return a
}
