package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrForbiddenTarget: the URL points at an address webhooks may not reach
// (loopback, private, link-local, …) and private targets are not allowed.
var ErrForbiddenTarget = errors.New("webhook target not allowed")

// CheckURL validates a webhook URL: http or https, a host, no user
// information, at most MaxURLLen bytes. Unless allowPrivate, a literal IP
// must be a public address and "localhost" is refused; host names are
// checked again, on every connection, by Client.
func CheckURL(raw string, allowPrivate bool) error {
	if len(raw) > MaxURLLen {
		return invalidf("url is longer than %d bytes", MaxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return invalidf("url %q must be an http:// or https:// URL with a host", truncate(raw, 80))
	}
	if u.User != nil {
		return invalidf("url must not carry user information")
	}
	if allowPrivate {
		return nil
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("%w: %s is a loopback host (set MITHUB_WEBHOOK_ALLOW_PRIVATE=1 to allow private targets)", ErrForbiddenTarget, host)
	}
	if ip, err := netip.ParseAddr(host); err == nil && !Public(ip) {
		return fmt.Errorf("%w: %s is not a public address (set MITHUB_WEBHOOK_ALLOW_PRIVATE=1 to allow private targets)", ErrForbiddenTarget, ip)
	}
	return nil
}

// Public reports whether ip is a public unicast address: not loopback,
// private (RFC 1918, unique local), link-local, unspecified, multicast,
// carrier-grade NAT (100.64/10) or an IPv4-mapped form of those.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	if ip.Is4() {
		b := ip.As4()
		switch {
		case b[0] == 0, b[0] == 100 && b[1]&0xc0 == 64, b[0] == 192 && b[1] == 0 && b[2] == 0, b[0] >= 240:
			return false
		}
	}
	return true
}

// Client returns the HTTP client deliveries use: timeout per request, no
// redirects followed (a 3xx is a failed attempt) and, unless
// allowPrivate, a dialer that refuses every non-public address after DNS
// resolution, so a name that resolves (or rebinds) to a private address
// is refused too.
func Client(timeout time.Duration, allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			ip, err := netip.ParseAddr(host)
			if err != nil || !Public(ip) {
				return fmt.Errorf("%w: %s is not a public address", ErrForbiddenTarget, host)
			}
			return nil
		}
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           func(ctx context.Context, n, a string) (net.Conn, error) { return d.DialContext(ctx, n, a) },
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
