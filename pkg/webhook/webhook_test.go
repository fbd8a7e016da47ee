package webhook

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestSignAndVerify(t *testing.T) {
	body := []byte(`{"id":"pr.approved:1","type":"pr.approved"}`)
	now := time.Unix(1_770_000_000, 0)
	h := Sign([]string{"whsec_new_secret_0123", "whsec_old_secret_0123"}, now, body)
	if !strings.HasPrefix(h, "t=1770000000,v1=") || strings.Count(h, ",v1=") != 2 {
		t.Fatalf("header = %s", h)
	}
	for _, secret := range []string{"whsec_new_secret_0123", "whsec_old_secret_0123"} {
		if err := Verify(h, body, secret, 0, now.Add(time.Minute)); err != nil {
			t.Errorf("verify with %s: %v", secret, err)
		}
	}
	if err := Verify(h, body, "whsec_other_secret_01", 0, now); !errors.Is(err, ErrMismatch) {
		t.Errorf("wrong secret: %v", err)
	}
	if err := Verify(h, append(body, ' '), "whsec_new_secret_0123", 0, now); !errors.Is(err, ErrMismatch) {
		t.Errorf("changed body: %v", err)
	}
	if err := Verify(h, body, "whsec_new_secret_0123", 0, now.Add(6*time.Minute)); !errors.Is(err, ErrStale) {
		t.Errorf("old timestamp: %v", err)
	}
	for _, bad := range []string{"", "v1=abc", "t=x,v1=abc", "t=1770000000"} {
		if err := Verify(bad, body, "whsec_new_secret_0123", 0, now); !errors.Is(err, ErrNoSignature) {
			t.Errorf("header %q: %v", bad, err)
		}
	}
	// The documented recipe: HMAC-SHA256 over "<t>.<body>", hex.
	if want := signature("s3cr3t-s3cr3t-s3cr3t", "1770000000", body); !strings.Contains(Sign([]string{"s3cr3t-s3cr3t-s3cr3t"}, now, body), "v1="+want) {
		t.Error("Sign does not use the documented recipe")
	}
}

func TestSecretsDuringGrace(t *testing.T) {
	now := time.Now()
	later := now.Add(time.Hour)
	w := Webhook{Secret: "new", PreviousSecret: "old", PreviousExpiresAt: &later}
	if got := w.Secrets(now); len(got) != 2 || got[0] != "new" || got[1] != "old" {
		t.Errorf("secrets in grace = %v", got)
	}
	if got := w.Secrets(later.Add(time.Second)); len(got) != 1 {
		t.Errorf("secrets after grace = %v", got)
	}
}

func TestCheckURLAndPublic(t *testing.T) {
	for _, tc := range []struct {
		url     string
		private bool
		ok      bool
	}{
		{"https://hooks.example.com/mithub", false, true},
		{"http://93.184.216.34:8080/x", false, true},
		{"http://127.0.0.1:9000/x", false, false},
		{"http://localhost/x", false, false},
		{"http://api.localhost/x", false, false},
		{"http://10.1.2.3/x", false, false},
		{"http://192.168.0.10/x", false, false},
		{"http://169.254.169.254/latest/meta-data", false, false},
		{"http://[::1]/x", false, false},
		{"http://[::ffff:127.0.0.1]/x", false, false},
		{"http://100.64.0.1/x", false, false},
		{"http://0.0.0.0/x", false, false},
		{"http://127.0.0.1:9000/x", true, true},
		{"ftp://example.com/x", false, false},
		{"https://user:pw@example.com/x", false, false},
		{"example.com/x", false, false},
		{"https://" + strings.Repeat("a", MaxURLLen) + ".com", false, false},
	} {
		err := CheckURL(tc.url, tc.private)
		if (err == nil) != tc.ok {
			t.Errorf("CheckURL(%q, private %v) = %v, want ok %v", tc.url, tc.private, err, tc.ok)
		}
	}
	if !Public(netip.MustParseAddr("8.8.8.8")) || Public(netip.MustParseAddr("fd00::1")) || Public(netip.MustParseAddr("fe80::1")) {
		t.Error("Public misclassifies")
	}
}

func TestClientRefusesPrivateTargetsAfterResolution(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	// A host name that resolves to loopback passes CheckURL but not the
	// dialer.
	url := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	_, err := Client(time.Second, false).Get(url)
	if !errors.Is(err, ErrForbiddenTarget) {
		t.Fatalf("GET %s = %v, want ErrForbiddenTarget", url, err)
	}
	resp, err := Client(time.Second, true).Get(srv.URL)
	if err != nil {
		t.Fatalf("allowed private GET: %v", err)
	}
	resp.Body.Close()
}

func TestCheckEventsAndSecret(t *testing.T) {
	if err := CheckEvents([]string{MeetingEnded, PRApproved}); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]string{nil, {"pr.merged"}, {PRReady, PRReady}} {
		if err := CheckEvents(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("CheckEvents(%v) = %v", bad, err)
		}
	}
	if err := CheckSecret("short"); !errors.Is(err, ErrInvalid) {
		t.Error("short secret accepted")
	}
	if err := CheckSecret("has a space in it......"); !errors.Is(err, ErrInvalid) {
		t.Error("secret with spaces accepted")
	}
	if s := NewSecret(); CheckSecret(s) != nil || !strings.HasPrefix(s, "whsec_") || NewSecret() == s {
		t.Errorf("NewSecret = %s", s)
	}
}
