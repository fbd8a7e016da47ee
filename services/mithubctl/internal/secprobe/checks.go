package secprobe

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Loopback source addresses, so per-address limits tell the probes apart.
const (
	srcDefault = "127.0.0.1"
	srcHealth  = "127.0.0.2"
	srcFlood   = "127.0.0.3"
	srcBadKeys = "127.0.0.4"
	srcLegit   = "127.0.0.5"
)

// Row 7: a NUL in a jsonb value or key is a 400.
func checkNUL(ctx context.Context, p *probe) (bool, string) {
	key, err := p.key(ctx, "nul")
	if err != nil {
		return false, err.Error()
	}
	c := client(srcDefault, 10*time.Second)
	var ev []string
	pass := true
	for _, body := range []string{
		`{"title":"t","metadata":{"project":"a\u0000b"}}`,
		`{"title":"t","metadata":{"a\u0000b":"x"}}`,
		`{"title":"t","metadata":{"nested":{"k":["x\u0000"]}}}`,
	} {
		r, err := p.doRetry(ctx, c, http.MethodPost, "/v1/meetings", key, []byte(body))
		if err != nil {
			return false, err.Error()
		}
		pass = pass && r.status == http.StatusBadRequest
		ev = append(ev, fmt.Sprintf("%s → %d %s", body, r.status, errorCode(r.body)))
	}
	return pass, strings.Join(ev, "; ")
}

// Row 1: dev-key is refused by the prod agent-api although a dev process
// stored it; a prod realtime-worker with dev credentials does not start.
func checkDevKey(ctx context.Context, p *probe) (bool, string) {
	// The probe's store refuses dev keys like any prod process, so the
	// key's presence is read from its mark.
	var stored string
	if n, err := p.st.CountDevAPIKeys(ctx); err != nil || n == 0 {
		stored = fmt.Sprintf("no dev key in api_keys (%d, %v): start a dev agent-api on this database first for a meaningful check", n, err)
	} else {
		stored = fmt.Sprintf("%d dev key(s) in api_keys (a dev process used this database)", n)
	}
	c := client(srcDefault, 10*time.Second)
	get, err := p.do(ctx, c, http.MethodGet, "/v1/meetings", "dev-key", nil)
	if err != nil {
		return false, err.Error()
	}
	post, err := p.do(ctx, c, http.MethodPost, "/v1/meetings", "dev-key", map[string]any{"title": "dev key in prod"})
	if err != nil {
		return false, err.Error()
	}
	pass := get.status == http.StatusUnauthorized && post.status == http.StatusUnauthorized
	ev := fmt.Sprintf("%s; prod GET /v1/meetings with dev-key → %d, POST → %d", stored, get.status, post.status)
	if p.cfg.RealtimeDevCheck != nil {
		refused, rev := p.cfg.RealtimeDevCheck(ctx)
		pass = pass && refused
		ev += "; " + rev
	} else {
		ev += "; prod realtime-worker with dev credentials: not checked"
	}
	return pass, ev
}

// RealtimeDevStart returns a RealtimeDevCheck that starts bin in prod
// mode with the dev credentials (and env, e.g. the database and Redis
// URLs) and waits up to 20 s: a process that exits with an error refused;
// one still running (or exiting 0) did not, and is stopped.
func RealtimeDevStart(bin string, env []string) func(ctx context.Context) (bool, string) {
	return func(ctx context.Context) (bool, string) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return false, err.Error()
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		cmd := exec.Command(bin)
		cmd.Env = append(append(os.Environ(), env...), "MITHUB_ENV=prod", "MITHUB_API_KEY=dev-key",
			"MITHUB_LIVEKIT_API_KEY=devkey", "MITHUB_LIVEKIT_API_SECRET=secret", "MITHUB_WORKER_HTTP_ADDR="+addr)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			return false, "start realtime-worker: " + err.Error()
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				return true, "prod realtime-worker with dev-key/devkey/secret exited at start (" + err.Error() + "): " + lastLine(out.String())
			}
			return false, "prod realtime-worker with dev credentials exited 0"
		case <-time.After(20 * time.Second):
		case <-ctx.Done():
		}
		_ = cmd.Process.Kill()
		<-done
		return false, "prod realtime-worker with dev-key/devkey/secret was still running after 20 s"
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return short([]byte(lines[len(lines)-1]))
}

// webhookToken signs body for realtime-worker with exactly these claims.
func webhookToken(secret string, claims map[string]any, body []byte) string {
	sum := sha256.Sum256(body)
	claims["sha256"] = base64.StdEncoding.EncodeToString(sum[:])
	enc := base64.RawURLEncoding
	hdr, _ := json.Marshal(map[string]string{"alg": "HS256", "typ": "JWT"})
	cl, _ := json.Marshal(claims)
	msg := enc.EncodeToString(hdr) + "." + enc.EncodeToString(cl)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(msg))
	return msg + "." + enc.EncodeToString(mac.Sum(nil))
}

// Row 8: the webhook refuses a token without exp, a stale event and a
// repeated event id. The events are participant_joined, which the worker
// otherwise ignores (204), so a refusal is the check's doing alone.
func checkWebhook(ctx context.Context, p *probe) (bool, string) {
	if p.cfg.RealtimeURL == "" {
		return false, skipPrefix + "no realtime-worker URL"
	}
	c := client(srcDefault, 10*time.Second)
	now := time.Now()
	post := func(id string, created time.Time, withExp bool) (int, error) {
		body, _ := json.Marshal(map[string]any{"event": "participant_joined", "id": id, "createdAt": created.Unix(),
			"room": map[string]any{"name": "secprobe-" + p.run}, "participant": map[string]any{"identity": "probe"}})
		claims := map[string]any{"iss": p.cfg.LiveKitKey, "nbf": now.Add(-time.Minute).Unix()}
		if withExp {
			claims["exp"] = now.Add(5 * time.Minute).Unix()
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.RealtimeURL+"/livekit/webhook", bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", webhookToken(p.cfg.LiveKitSecret, claims, body))
		req.Header.Set("Content-Type", "application/webhook+json")
		r, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		r.Body.Close()
		return r.StatusCode, nil
	}
	noExp, err := post("EV_probe_noexp_"+p.run, now, false)
	if err != nil {
		return false, err.Error()
	}
	stale, err := post("EV_probe_stale_"+p.run, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), true)
	if err != nil {
		return false, err.Error()
	}
	var dup []int
	for range 3 {
		st, err := post("EV_probe_dup_"+p.run, now, true)
		if err != nil {
			return false, err.Error()
		}
		dup = append(dup, st)
	}
	accepted := 0
	for _, s := range dup {
		if s < 300 {
			accepted++
		}
	}
	pass := noExp >= 400 && noExp < 500 && stale >= 400 && stale < 500 && dup[0] < 300 && accepted == 1
	return pass, fmt.Sprintf("token without exp → %d; event created 2020-01-01 with a fresh token → %d; one signed event sent 3 times → %v",
		noExp, stale, dup)
}

// xacts is the database's committed and rolled-back transactions, read
// once the counter has stopped moving (PostgreSQL flushes backend stats
// about once a second).
func (p *probe) xacts(ctx context.Context) (int64, error) {
	read := func() (int64, error) {
		var n int64
		err := p.pool.QueryRow(ctx, `SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()`).Scan(&n)
		return n, err
	}
	prev, err := read()
	if err != nil {
		return 0, err
	}
	for range 10 {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(1100 * time.Millisecond):
		}
		n, err := read()
		if err != nil {
			return 0, err
		}
		if n-prev <= 1 { // our own read
			return n, nil
		}
		prev = n
	}
	return prev, nil
}

// Row 6: 1,000 distinct invalid keys from one address cause far fewer
// than 1,000 transactions, and a client on another address is served.
func checkInvalidKeys(ctx context.Context, p *probe) (bool, string) {
	const n = 1000
	key, err := p.key(ctx, "legit")
	if err != nil {
		return false, err.Error()
	}
	before, err := p.xacts(ctx)
	if err != nil {
		return false, err.Error()
	}
	c := client(srcBadKeys, 10*time.Second)
	var mu sync.Mutex
	statuses := map[int]int{}
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > n || ctx.Err() != nil {
					return
				}
				r, err := p.do(ctx, c, http.MethodGet, "/v1/meetings", fmt.Sprintf("mh_invalid_%s_%d", p.run, i), nil)
				st := r.status
				if err != nil {
					st = -1
				}
				mu.Lock()
				statuses[st]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	after, err := p.xacts(ctx)
	if err != nil {
		return false, err.Error()
	}
	legit, err := p.doRetry(ctx, client(srcLegit, 10*time.Second), http.MethodGet, "/v1/meetings", key, nil)
	if err != nil {
		return false, err.Error()
	}
	delta := after - before
	pass := delta <= n/10 && legit.status == http.StatusOK
	return pass, fmt.Sprintf("%d distinct invalid keys from %s in %s: statuses %v; PostgreSQL transactions meanwhile %d (pass: ≤ %d); a valid key from %s → %d",
		n, srcBadKeys, took.Round(time.Millisecond), statuses, delta, n/10, srcLegit, legit.status)
}

// stream is an open /events stream.
type stream struct {
	cancel context.CancelFunc
	events chan string // event names; closed at the end
	last   string      // the data of the last error event
	mu     sync.Mutex
}

func (s *stream) lastError() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// openStream opens /events; a refusal returns the status and body.
func (p *probe) openStream(ctx context.Context, tr *http.Transport, key, meeting string) (*stream, int, []byte, error) {
	sctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, p.cfg.APIURL+"/v1/meetings/"+meeting+"/events", nil)
	if err != nil {
		cancel()
		return nil, 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Accept", "text/event-stream")
	r, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		cancel()
		return nil, 0, nil, err
	}
	if r.StatusCode != http.StatusOK {
		b := make([]byte, 2048)
		n, _ := r.Body.Read(b)
		r.Body.Close()
		cancel()
		return nil, r.StatusCode, b[:n], nil
	}
	s := &stream{cancel: cancel, events: make(chan string, 64)}
	go func() {
		defer close(s.events)
		defer r.Body.Close()
		sc := bufio.NewScanner(r.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		ev := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && ev == "error":
				s.mu.Lock()
				s.last = strings.TrimPrefix(line, "data: ")
				s.mu.Unlock()
			case line == "" && ev != "":
				select {
				case s.events <- ev:
				default:
				}
				ev = ""
			}
		}
	}()
	return s, http.StatusOK, nil, nil
}

var refusedSeries = regexp.MustCompile(`(?m)^mithub_event_streams_refused_total\{limit="(\w+)"\} (\S+)$`)

// Row 3: one key, then one tenant, is refused (429) well before the
// server's cap; another tenant still gets a stream; refusals are counted
// and not logged at ERROR.
func checkStreamCaps(ctx context.Context, p *probe) (bool, string) {
	const maxPerKey, maxPerTenant = 150, 600
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	var open []*stream
	defer func() {
		for _, s := range open {
			s.cancel()
		}
	}()
	c := client(srcDefault, 10*time.Second)
	k1, err := p.key(ctx, "streams-a")
	if err != nil {
		return false, err.Error()
	}
	tenantA := "secprobe-streams-a-" + p.run
	m, err := p.meeting(ctx, c, k1)
	if err != nil {
		return false, err.Error()
	}
	// fill opens streams with key until a refusal or limit.
	fill := func(key string, limit int) (int, int, []byte, error) {
		for n := 0; n < limit; n++ {
			s, st, body, err := p.openStream(ctx, tr, key, m)
			if err != nil {
				return n, 0, nil, err
			}
			if st != http.StatusOK {
				return n, st, body, nil
			}
			open = append(open, s)
		}
		return limit, 0, nil, nil
	}
	perKey, keySt, keyBody, err := fill(k1, maxPerKey)
	if err != nil {
		return false, err.Error()
	}
	if keySt == 0 {
		return false, fmt.Sprintf("%d streams opened with one key, none refused", perKey)
	}
	ev := fmt.Sprintf("key: refused after %d streams with %d %s", perKey, keySt, errorCode(keyBody))
	total, tenSt, tenBody := perKey, 0, []byte(nil)
	for keys := 1; total < maxPerTenant && tenSt == 0; keys++ {
		k, err := p.st.CreateAPIKey(ctx, tenantA, "security-check-"+strconv.Itoa(keys))
		if err != nil {
			return false, err.Error()
		}
		n, st, body, err := fill(k, maxPerKey)
		if err != nil {
			return false, ev + "; " + err.Error()
		}
		total += n
		if st == http.StatusTooManyRequests && n < perKey {
			tenSt, tenBody = st, body
		} else if st != http.StatusTooManyRequests && st != 0 {
			tenSt, tenBody = st, body
		}
	}
	ev += fmt.Sprintf("; tenant: refused after %d streams with %d %s", total, tenSt, errorCode(tenBody))
	kb, err := p.key(ctx, "streams-b")
	if err != nil {
		return false, err.Error()
	}
	mb, err := p.meeting(ctx, c, kb)
	if err != nil {
		return false, err.Error()
	}
	sb, otherSt, _, err := p.openStream(ctx, tr, kb, mb)
	if err != nil {
		return false, ev + "; " + err.Error()
	}
	if sb != nil {
		open = append(open, sb)
	}
	ev += fmt.Sprintf("; another tenant meanwhile → %d", otherSt)
	metrics, err := p.do(ctx, c, http.MethodGet, "/metrics", "", nil)
	if err != nil {
		return false, ev + "; " + err.Error()
	}
	counted := map[string]string{}
	for _, m := range refusedSeries.FindAllStringSubmatch(string(metrics.body), -1) {
		counted[m[1]] = m[2]
	}
	ev += fmt.Sprintf("; mithub_event_streams_refused_total %v", counted)
	logOK := true
	if p.cfg.APILog != "" {
		b, err := os.ReadFile(p.cfg.APILog)
		if err != nil {
			return false, ev + "; " + err.Error()
		}
		warn, errLines := 0, 0
		for _, line := range strings.Split(string(b), "\n") {
			isErr := strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, "level=ERROR")
			if strings.Contains(line, "stream") && isErr {
				errLines++
			}
			if strings.Contains(line, "event stream refused") && !isErr {
				warn++
			}
		}
		logOK = errLines == 0 && warn > 0
		ev += fmt.Sprintf("; log: %d refusals below ERROR, %d ERROR lines about streams", warn, errLines)
	}
	pass := keySt == http.StatusTooManyRequests && tenSt == http.StatusTooManyRequests && total > perKey &&
		otherSt == http.StatusOK && counted["key"] != "" && counted["tenant"] != "" && logOK
	return pass, ev
}

// Row 4: a stream whose key is revoked ends within 30 s (plus 2 s).
func checkRevokedStream(ctx context.Context, p *probe) (bool, string) {
	key, err := p.key(ctx, "revoke")
	if err != nil {
		return false, err.Error()
	}
	c := client(srcDefault, 10*time.Second)
	m, err := p.meeting(ctx, c, key)
	if err != nil {
		return false, err.Error()
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	s, st, body, err := p.openStream(ctx, tr, key, m)
	if err != nil {
		return false, err.Error()
	}
	if st != http.StatusOK {
		return false, fmt.Sprintf("stream refused: %d %s", st, short(body))
	}
	defer s.cancel()
	deadline := time.After(10 * time.Second)
	for ready := false; !ready; {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return false, "stream ended before ready"
			}
			ready = ev == "ready"
		case <-deadline:
			return false, "no ready event within 10 s"
		}
	}
	if err := p.st.RevokeAPIKey(ctx, key); err != nil {
		return false, err.Error()
	}
	revoked := time.Now()
	wait := time.After(p.cfg.StreamRecheckWait)
	for {
		select {
		case _, ok := <-s.events:
			if ok {
				continue
			}
			took := time.Since(revoked)
			return took <= 32*time.Second, fmt.Sprintf("the stream ended %.1f s after the key was revoked (pass: ≤ 32 s); last error event %s",
				took.Seconds(), s.lastError())
		case <-wait:
			return false, fmt.Sprintf("the stream was still open %s after the key was revoked", p.cfg.StreamRecheckWait)
		}
	}
}

// generatePR posts generate-pr and returns the PR id.
func (p *probe) generatePR(ctx context.Context, c *http.Client, key, meeting string) (string, int, error) {
	r, err := p.doRetry(ctx, c, http.MethodPost, "/v1/meetings/"+meeting+"/generate-pr?wait=false", key, map[string]any{})
	if err != nil {
		return "", 0, err
	}
	var g struct {
		PRID string `json:"pr_id"`
	}
	_ = json.Unmarshal(r.body, &g)
	if r.status >= 300 || g.PRID == "" {
		return "", r.status, fmt.Errorf("generate-pr: %d %s", r.status, short(r.body))
	}
	return g.PRID, r.status, nil
}

// waitPR polls the PR until it is no longer queued or running.
func (p *probe) waitPR(ctx context.Context, c *http.Client, key, id string) (string, error) {
	for {
		r, err := p.doRetry(ctx, c, http.MethodGet, "/v1/prs/"+id, key, nil)
		if err != nil {
			return "", err
		}
		var pr struct{ Status, Error string }
		_ = json.Unmarshal(r.body, &pr)
		if r.status != http.StatusOK {
			return "", fmt.Errorf("GET /v1/prs/%s: %d %s", id, r.status, short(r.body))
		}
		if pr.Status != "queued" && pr.Status != "running" {
			return pr.Status, nil
		}
		select {
		case <-ctx.Done():
			return pr.Status, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Row 9: a burst of 400 requests with one key meets 429 with the
// default configuration; generate-pr repeated on an unchanged meeting
// after its PR finished returns that PR.
func checkRateAndPR(ctx context.Context, p *probe) (bool, string) {
	const burst = 400
	key, err := p.key(ctx, "ratelimit")
	if err != nil {
		return false, err.Error()
	}
	c := client(srcDefault, 10*time.Second)
	var limited, ok, other atomic.Int64
	var retryAfter atomic.Value
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= burst && ctx.Err() == nil {
				r, err := p.do(ctx, c, http.MethodGet, "/v1/meetings?limit=1", key, nil)
				switch {
				case err == nil && r.status == http.StatusTooManyRequests:
					limited.Add(1)
					retryAfter.Store(r.header.Get("Retry-After"))
				case err == nil && r.status == http.StatusOK:
					ok.Add(1)
				default:
					other.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	ra, _ := retryAfter.Load().(string)
	ev := fmt.Sprintf("%d requests with one key in %s: %d × 200, %d × 429 (Retry-After %q), %d other",
		burst, time.Since(start).Round(time.Millisecond), ok.Load(), limited.Load(), ra, other.Load())
	ratePass := limited.Load() > 0 && ra != ""

	key2, err := p.key(ctx, "generate-pr")
	if err != nil {
		return false, ev + "; " + err.Error()
	}
	m, err := p.meeting(ctx, c, key2)
	if err != nil {
		return false, ev + "; " + err.Error()
	}
	if err := p.utterances(ctx, c, key2, m, "pr", 0, 60); err != nil {
		return false, ev + "; " + err.Error()
	}
	first, _, err := p.generatePR(ctx, c, key2, m)
	if err != nil {
		return false, ev + "; " + err.Error()
	}
	status, err := p.waitPR(ctx, c, key2, first)
	if err != nil {
		return false, ev + "; " + err.Error()
	}
	ids := map[string]int{first: 1}
	for range 10 {
		select {
		case <-ctx.Done():
			return false, ev + "; " + ctx.Err().Error()
		case <-time.After(200 * time.Millisecond):
		}
		id, _, err := p.generatePR(ctx, c, key2, m)
		if err != nil {
			return false, ev + "; " + err.Error()
		}
		ids[id]++
	}
	ev += fmt.Sprintf("; generate-pr on an unchanged meeting: the first PR %s, then 10 more requests 0.2 s apart → %d distinct PR ids", status, len(ids))
	return ratePass && len(ids) == 1, ev
}

// prPeak generates the PR of a new meeting of turns turns and returns
// pr-worker's RSS before and its peak RSS during the job, in KiB.
func (p *probe) prPeak(ctx context.Context, c *http.Client, turns int) (base, peak int64, ev string, err error) {
	key, err := p.key(ctx, "prmem-"+strconv.Itoa(turns))
	if err != nil {
		return 0, 0, "", err
	}
	m, err := p.meeting(ctx, c, key)
	if err != nil {
		return 0, 0, "", err
	}
	start := time.Now()
	if err := p.utterances(ctx, c, key, m, "big", 0, turns); err != nil {
		return 0, 0, "", err
	}
	ingest := time.Since(start)
	pid := p.cfg.PRWorkerPID
	statusPath := fmt.Sprintf("/proc/%d/status", pid)
	// Writing 5 to clear_refs resets the peak RSS (VmHWM) to the current RSS.
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return 0, 0, "", fmt.Errorf("reset pr-worker's peak RSS: %w", err)
	}
	if base, err = procKB(statusPath, "VmRSS"); err != nil {
		return 0, 0, "", err
	}
	start = time.Now()
	id, _, err := p.generatePR(ctx, c, key, m)
	if err != nil {
		return 0, 0, "", err
	}
	status, err := p.waitPR(ctx, c, key, id)
	if err != nil {
		return 0, 0, "", err
	}
	if status != "succeeded" {
		return 0, 0, "", fmt.Errorf("the PR of %d turns ended %s", turns, status)
	}
	if peak, err = procKB(statusPath, "VmHWM"); err != nil {
		return 0, 0, "", err
	}
	return base, peak, fmt.Sprintf("%d turns (ingested in %.0f s, PR in %.0f s): RSS %d MiB before, peak %d MiB",
		turns, ingest.Seconds(), time.Since(start).Seconds(), base>>10, peak>>10), nil
}

// Row 5: pr-worker's memory for one PR is bounded: its peak RSS for a
// PRTurns-turn meeting stays within PRMaxRSS, and what the job adds to
// the RSS less than doubles while the meeting grows fourfold (it grows
// about fourfold when the transcript is held whole).
func checkPRMemory(ctx context.Context, p *probe) (bool, string) {
	if p.cfg.PRWorkerPID == 0 {
		return false, skipPrefix + "no pr-worker pid"
	}
	c := client(srcDefault, 60*time.Second)
	small := max(p.cfg.PRTurns/4, 1)
	b1, p1, ev1, err := p.prPeak(ctx, c, small)
	if err != nil {
		return false, err.Error()
	}
	b2, p2, ev2, err := p.prPeak(ctx, c, p.cfg.PRTurns)
	if err != nil {
		return false, ev1 + "; " + err.Error()
	}
	grew1, grew2 := max(p1-b1, 0), max(p2-b2, 0)
	pass := p2<<10 <= p.cfg.PRMaxRSS && grew2 <= 2*grew1+16<<10
	return pass, fmt.Sprintf("%s; %s; the job added %d MiB, then %d MiB for 4× the turns (pass: ≤ 2× + 16 MiB, and peak ≤ %d MiB)",
		ev1, ev2, grew1>>10, grew2>>10, p.cfg.PRMaxRSS>>20)
}

// procKB reads a "Name:   123 kB" line of /proc/PID/status.
func procKB(path, name string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("%s: no %s", path, name)
}

// healthz asks /healthz from srcHealth; the status, or 0 and the error.
func (p *probe) healthz(ctx context.Context) (int, string) {
	r, err := p.do(ctx, client(srcHealth, 5*time.Second), http.MethodGet, "/healthz", "", nil)
	if err != nil {
		return 0, err.Error()
	}
	return r.status, ""
}

// Row 2: FloodConns idle connections from one address, each with headers
// and a partial body, do not stop agent-api: /healthz from another
// address answers during the flood and after it.
func checkFlood(ctx context.Context, p *probe) (bool, string) {
	u := strings.TrimPrefix(strings.TrimPrefix(p.cfg.APIURL, "http://"), "https://")
	d := &net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(srcFlood)}}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	partial := []byte("POST /v1/meetings HTTP/1.1\r\nHost: " + u + "\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"title\":")
	dialErrs, writeErrs := 0, 0
	var firstErr string
	for i := 0; i < p.cfg.FloodConns && ctx.Err() == nil; i++ {
		c, err := d.DialContext(ctx, "tcp", u)
		if err != nil {
			dialErrs++
			if firstErr == "" {
				firstErr = err.Error()
			}
			if dialErrs >= 50 {
				break
			}
			continue
		}
		conns = append(conns, c)
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := c.Write(partial); err != nil {
			writeErrs++
		}
	}
	during, derr := p.healthz(ctx)
	for _, c := range conns {
		_ = c.Close()
	}
	held := len(conns)
	conns = nil
	after, aerr := 0, ""
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if after, aerr = p.healthz(ctx); after == http.StatusOK {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	ev := fmt.Sprintf("%d connections from %s with headers and a partial body held (%d dial errors, first %q; %d write errors); /healthz from %s during → %d %s, after → %d %s",
		held, srcFlood, dialErrs, firstErr, writeErrs, srcHealth, during, derr, after, aerr)
	return during == http.StatusOK && after == http.StatusOK, ev
}
