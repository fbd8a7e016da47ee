package secprobe

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMarkdownCountsFailsAndEscapes(t *testing.T) {
	var b bytes.Buffer
	fails := Markdown(&b, []Result{
		{Row: 1, Check: "a", Pass: true, Evidence: "ok"},
		{Row: 2, Check: "b", Evidence: "x | y\nz"},
		{Row: 5, Check: "c", Skipped: true, Evidence: "not run: no pid"},
	})
	if fails != 1 {
		t.Errorf("%d fails, want 1", fails)
	}
	want := "| row | check | result | evidence |\n|---|---|---|---|\n| 1 | a | PASS | ok |\n| 2 | b | FAIL | x \\| y z |\n| 5 | c | SKIP | not run: no pid |\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"} {
		if err := loopbackOnly(u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range []string{"http://10.1.2.3:8080", "http://8.8.8.8", "not a url", ""} {
		if err := loopbackOnly(u); err == nil {
			t.Errorf("%s accepted", u)
		}
	}
}

// fakeWebhook checks the probe's tokens the way realtime-worker does:
// HS256 over the body's sha256; strict also wants exp, a fresh createdAt
// and an unseen id.
func fakeWebhook(t *testing.T, secret string, strict bool) *httptest.Server {
	var mu sync.Mutex
	seen := map[string]bool{}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		parts := strings.Split(r.Header.Get("Authorization"), ".")
		if len(parts) != 3 {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(parts[0] + "." + parts[1]))
		sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
		cl, _ := base64.RawURLEncoding.DecodeString(parts[1])
		var claims struct {
			Iss    string `json:"iss"`
			Exp    *int64 `json:"exp"`
			Sha256 string `json:"sha256"`
		}
		sum := sha256.Sum256(body)
		if !hmac.Equal(sig, mac.Sum(nil)) || json.Unmarshal(cl, &claims) != nil || claims.Iss != "k" ||
			claims.Sha256 != base64.StdEncoding.EncodeToString(sum[:]) || (strict && claims.Exp == nil) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var ev struct {
			ID        string `json:"id"`
			CreatedAt int64  `json:"createdAt"`
		}
		if err := json.Unmarshal(body, &ev); err != nil || ev.ID == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if strict && time.Since(time.Unix(ev.CreatedAt, 0)) > 5*time.Minute {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		dup := seen[ev.ID]
		seen[ev.ID] = true
		mu.Unlock()
		if strict && dup {
			w.WriteHeader(http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
}

func TestCheckWebhook(t *testing.T) {
	for _, strict := range []bool{true, false} {
		srv := fakeWebhook(t, "s3cret", strict)
		p := &probe{cfg: Config{RealtimeURL: srv.URL, LiveKitKey: "k", LiveKitSecret: "s3cret"}, run: "t"}
		pass, ev := checkWebhook(context.Background(), p)
		srv.Close()
		if pass != strict {
			t.Errorf("strict %v: pass %v (%s)", strict, pass, ev)
		}
		if !strict && !strings.Contains(ev, "[204 204 204]") {
			t.Errorf("lenient server: evidence %s", ev)
		}
	}
}

func TestCheckFlood(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer srv.Close()
	p := &probe{cfg: Config{APIURL: srv.URL, FloodConns: 100}}
	if pass, ev := checkFlood(context.Background(), p); !pass || !strings.Contains(ev, "100 connections") {
		t.Errorf("a server that keeps answering: pass %v (%s)", pass, ev)
	}

	// A server that stops at the flood: it accepts until 50 connections,
	// then closes its listener.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for len(conns) < 50 {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
		ln.Close()
	}()
	p = &probe{cfg: Config{APIURL: "http://" + ln.Addr().String(), FloodConns: 100}}
	if pass, ev := checkFlood(context.Background(), p); pass {
		t.Errorf("a server that stopped: pass (%s)", ev)
	}
	<-done
	for _, c := range conns {
		c.Close()
	}
}
