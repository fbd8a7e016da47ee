package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

const secret = "whsec_example_receiver_secret"

func sign(body string, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + body))
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

const approved = `{"id":"pr.approved:p1","type":"pr.approved","created_at":"2026-03-12T10:00:00Z","data":{
"pr_id":"p1","meeting_id":"m1","project":"haru","title":"Haru 2.0 launch review","status":"approved",
"action_items":[{"text":"Prepare the capacity plan for the staged rollout","owner":"David Park","due":"by next Wednesday","due_date":"2026-03-18","topic":"Staged rollout"},
{"text":"스토어 심사 자료를 3월 20일까지 제출","owner":"이서연","due":"3월 20일까지","due_date":"2026-03-20"}]}}`

func TestReceiverPrintsIssuesOncePerKey(t *testing.T) {
	var out bytes.Buffer
	now := time.Now()
	r := &receiver{secret: secret, out: &out, now: func() time.Time { return now }, seen: map[string]bool{}}
	post := func(body, sig, key string) int {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-MitHub-Signature", sig)
		req.Header.Set("Idempotency-Key", key)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w.Code
	}
	if code := post(approved, sign(approved, now), "d1"); code != http.StatusOK {
		t.Fatalf("delivery = %d", code)
	}
	if code := post(approved, sign(approved, now), "d1"); code != http.StatusOK {
		t.Fatalf("redelivery = %d", code)
	}
	got := out.String()
	if strings.Count(got, "---- GitHub issue ----") != 2 ||
		!strings.Contains(got, "Title: Prepare the capacity plan for the staged rollout") ||
		!strings.Contains(got, "- Owner: 이서연\n- Due: 2026-03-20 (3월 20일까지)") {
		t.Fatalf("printed:\n%s", got)
	}
	if code := post(approved, sign(approved+" ", now), "d2"); code != http.StatusUnauthorized {
		t.Errorf("bad signature = %d", code)
	}
	if code := post(approved, sign(approved, now.Add(-time.Hour)), "d3"); code != http.StatusUnauthorized {
		t.Errorf("stale signature = %d", code)
	}
}
