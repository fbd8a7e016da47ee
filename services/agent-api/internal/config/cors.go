package config

import (
	"errors"
	"net/url"
	"strings"
)

// checkOrigin accepts a CORS origin as browsers send it: "*", or
// scheme://host[:port] with scheme http or https and nothing after the
// host; the host may start with "*." to allow every subdomain.
func checkOrigin(o string) error {
	if o == "*" {
		return nil
	}
	u, err := url.Parse(strings.Replace(o, "://*.", "://", 1))
	switch {
	case err != nil:
		return errors.New("not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("scheme must be http or https")
	case u.Host == "" || u.Hostname() == "" || strings.Contains(u.Host, "*"):
		return errors.New("host is missing or has a misplaced *")
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return errors.New("an origin is scheme://host[:port], nothing more")
	}
	return nil
}
