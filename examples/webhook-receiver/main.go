// Command webhook-receiver is a small MitHub webhook receiver: it
// verifies each delivery's X-MitHub-Signature, skips idempotency keys it
// has already handled, and turns the action items of every pr.approved
// event into GitHub issue bodies, which it prints (it posts nothing).
//
//	MITHUB_WEBHOOK_SECRET=whsec_… go run ./examples/webhook-receiver -addr :9000
//
// Register it with POST /v1/webhooks {"url": "http://host:9000/", "events":
// ["pr.approved"], "secret": "whsec_…"} (a private address needs
// MITHUB_WEBHOOK_ALLOW_PRIVATE=1 on agent-api and pr-worker). It uses only
// the standard library, so it can be copied as a starting point.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// tolerance bounds how old a signed timestamp may be (replays).
const tolerance = 5 * time.Minute

// verify checks header "t=<unix>,v1=<hex>[,v1=<hex>…]": some v1 must be
// HMAC-SHA256(secret, "<t>.<body>") in hex, and t within tolerance of now.
func verify(header string, body []byte, secret string, now time.Time) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return errors.New("no signature")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return errors.New("timestamp too old or in the future")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := hex.EncodeToString(mac.Sum(nil))
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return errors.New("signature mismatch")
}

type actionItem struct {
	Text    string `json:"text"`
	Owner   string `json:"owner"`
	Due     string `json:"due"`
	DueDate string `json:"due_date"`
	Topic   string `json:"topic"`
}

type event struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data struct {
		PRID        string       `json:"pr_id"`
		MeetingID   string       `json:"meeting_id"`
		Project     string       `json:"project"`
		Title       string       `json:"title"`
		ActionItems []actionItem `json:"action_items"`
	} `json:"data"`
}

// issueBodies renders one GitHub issue (title line, then body) per action
// item of an approved PR.
func issueBodies(e event) []string {
	var out []string
	for _, a := range e.Data.ActionItems {
		var b strings.Builder
		fmt.Fprintf(&b, "Title: %s\n\n", oneLine(a.Text, 80))
		fmt.Fprintf(&b, "%s\n\n", a.Text)
		if a.Owner != "" {
			fmt.Fprintf(&b, "- Owner: %s\n", a.Owner)
		}
		switch {
		case a.DueDate != "":
			fmt.Fprintf(&b, "- Due: %s (%s)\n", a.DueDate, a.Due)
		case a.Due != "":
			fmt.Fprintf(&b, "- Due: %s\n", a.Due)
		}
		if a.Topic != "" {
			fmt.Fprintf(&b, "- Topic: %s\n", a.Topic)
		}
		fmt.Fprintf(&b, "- From: %s (project %s), PR %s of meeting %s\n", e.Data.Title, e.Data.Project, e.Data.PRID, e.Data.MeetingID)
		out = append(out, b.String())
	}
	return out
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// receiver handles deliveries.
type receiver struct {
	secret string
	out    io.Writer
	now    func() time.Time

	mu   sync.Mutex
	seen map[string]bool // idempotency keys handled
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 4<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	if err := verify(req.Header.Get("X-MitHub-Signature"), body, r.secret, r.now()); err != nil {
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	key := req.Header.Get("Idempotency-Key")
	r.mu.Lock()
	dup := r.seen[key]
	r.seen[key] = true
	r.mu.Unlock()
	if dup {
		w.WriteHeader(http.StatusOK) // delivered before: acknowledge, do nothing
		return
	}
	var e event
	if err := json.Unmarshal(body, &e); err != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	if e.Type == "pr.approved" {
		for _, issue := range issueBodies(e) {
			fmt.Fprintf(r.out, "---- GitHub issue ----\n%s\n", issue)
		}
	}
	w.WriteHeader(http.StatusOK)
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "listen address")
	flag.Parse()
	secret := os.Getenv("MITHUB_WEBHOOK_SECRET")
	if secret == "" {
		log.Fatal("set MITHUB_WEBHOOK_SECRET to the webhook's secret")
	}
	r := &receiver{secret: secret, out: os.Stdout, now: time.Now, seen: map[string]bool{}}
	log.Printf("listening on %s", *addr)
	srv := &http.Server{Addr: *addr, Handler: r, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.ListenAndServe())
}
