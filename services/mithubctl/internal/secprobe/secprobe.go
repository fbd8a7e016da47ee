// Package secprobe re-runs nine attacks (listed in docs/security.md) against a running
// deployment (agent-api in prod mode on a database that a dev-mode process
// has used, pr-worker, realtime-worker) on loopback addresses, each bounded
// in requests and time, and reports one PASS or FAIL per row with its
// evidence. It is what `mithubctl security-check` runs.
package secprobe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mithub/mithub/pkg/store"
)

// Config is the deployment under test.
type Config struct {
	// APIURL is the prod agent-api (loopback only).
	APIURL string
	// DatabaseURL is the database agent-api uses; keys are created and
	// revoked there, and pg_stat_database is read.
	DatabaseURL string
	// RealtimeURL is realtime-worker's HTTP address (its LiveKit webhook);
	// LiveKitKey and LiveKitSecret are the credentials it was started
	// with. Empty: row 8 is not run.
	RealtimeURL, LiveKitKey, LiveKitSecret string
	// RealtimeDevCheck, when set, starts a prod realtime-worker with dev
	// credentials and reports whether it refused to start (row 1).
	RealtimeDevCheck func(ctx context.Context) (refused bool, evidence string)
	// PRWorkerPID is pr-worker's process id, whose peak RSS row 5 reads
	// (0: row 5 is not run).
	PRWorkerPID int
	// PRTurns is the size of row 5's large meeting (default 20000; the
	// small one has a quarter); PRMaxRSS the peak RSS in bytes that passes
	// (default 256 MiB).
	PRTurns  int
	PRMaxRSS int64
	// FloodConns bounds row 2's connections (default 1500).
	FloodConns int
	// APILog is agent-api's log file; row 3 reads its refusals (optional).
	APILog string
	// StreamRecheckWait bounds row 4's wait for a revoked key's stream
	// to end (default 45s).
	StreamRecheckWait time.Duration
	// Rows limits the run to these rows (empty: all).
	Rows []int
}

// Result is one row of the report.
type Result struct {
	Row      int
	Check    string
	Pass     bool
	Skipped  bool
	Evidence string
}

// check runs one row.
type check struct {
	row   int
	name  string
	run   func(ctx context.Context, p *probe) (bool, string)
	limit time.Duration
}

// probe is the state the checks share.
type probe struct {
	cfg  Config
	st   *store.Store
	pool *pgxpool.Pool
	run  string // a per-run suffix for tenant names
}

// checks in the order they run; row 2 last, since before its fix it
// stops agent-api.
func checks() []check {
	return []check{
		{7, "NUL in jsonb metadata gives 400, never 500", checkNUL, time.Minute},
		{1, "a prod process never accepts dev credentials", checkDevKey, 2 * time.Minute},
		{8, "LiveKit webhook: exp required, stale and duplicate events refused", checkWebhook, time.Minute},
		{6, "invalid keys do not reach PostgreSQL once per request; limit before auth", checkInvalidKeys, 2 * time.Minute},
		{3, "per-key and per-tenant /events caps below the server cap", checkStreamCaps, 3 * time.Minute},
		{4, "a revoked key's open /events stream ends within 30 s", checkRevokedStream, 2 * time.Minute},
		{9, "rate limit on by default; generate-pr returns the existing PR", checkRateAndPR, 5 * time.Minute},
		{5, "one generate-pr job's memory is bounded (not proportional to the meeting)", checkPRMemory, 15 * time.Minute},
		{2, "a connection flood does not stop agent-api", checkFlood, 3 * time.Minute},
	}
}

// Run runs the checks and returns the results in row order.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	if err := loopbackOnly(cfg.APIURL); err != nil {
		return nil, err
	}
	if cfg.RealtimeURL != "" {
		if err := loopbackOnly(cfg.RealtimeURL); err != nil {
			return nil, err
		}
	}
	if cfg.PRTurns <= 0 {
		cfg.PRTurns = 20_000
	}
	if cfg.PRMaxRSS <= 0 {
		cfg.PRMaxRSS = 256 << 20
	}
	if cfg.FloodConns <= 0 {
		cfg.FloodConns = 1500
	}
	if cfg.StreamRecheckWait <= 0 {
		cfg.StreamRecheckWait = 45 * time.Second
	}
	st, err := store.Open(ctx, cfg.DatabaseURL, store.Options{MaxConns: 2})
	if err != nil {
		return nil, fmt.Errorf("open the database: %w", err)
	}
	defer st.Close()
	pool, err := pgxpool.New(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("open the database: %w", err)
	}
	defer pool.Close()
	p := &probe{cfg: cfg, st: st, pool: pool, run: strconv.FormatInt(time.Now().UnixNano(), 36)}
	var out []Result
	for _, c := range checks() {
		if len(cfg.Rows) > 0 && !contains(cfg.Rows, c.row) {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, c.limit)
		pass, ev := c.run(cctx, p)
		if cctx.Err() != nil && ctx.Err() == nil {
			pass, ev = false, ev+fmt.Sprintf(" (time limit %s reached)", c.limit)
		}
		cancel()
		r := Result{Row: c.row, Check: c.name, Pass: pass, Evidence: ev}
		if strings.HasPrefix(ev, skipPrefix) {
			r.Pass, r.Skipped = false, true
		}
		out = append(out, r)
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Row < out[j].Row })
	return out, nil
}

// skipPrefix marks the evidence of a check that was not run.
const skipPrefix = "not run: "

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// loopbackOnly refuses a URL whose host is not a loopback address.
func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL", raw)
	}
	ips, err := net.LookupIP(u.Hostname())
	if err != nil || len(ips) == 0 {
		return fmt.Errorf("%s: %v", u.Hostname(), err)
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return fmt.Errorf("%s is not a loopback address: the security check only runs on loopback", u.Host)
		}
	}
	return nil
}

// Markdown writes the results as a table; it returns the number of FAILs.
func Markdown(w io.Writer, rs []Result) int {
	fails := 0
	fmt.Fprintln(w, "| row | check | result | evidence |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rs {
		res := "PASS"
		switch {
		case r.Skipped:
			res = "SKIP"
		case !r.Pass:
			res = "FAIL"
			fails++
		}
		fmt.Fprintf(w, "| %d | %s | %s | %s |\n", r.Row, cell(r.Check), res, cell(r.Evidence))
	}
	return fails
}

func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// client is an HTTP client from a given loopback source address, so that
// probes from different "clients" are told apart by per-address limits.
func client(src string, timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if src != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(src)}
	}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 16}}
}

// resp is a read response.
type resp struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request; body is JSON-encoded unless it is []byte.
func (p *probe) do(ctx context.Context, c *http.Client, method, path, key string, body any) (resp, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return resp{}, err
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.cfg.APIURL+path, rd)
	if err != nil {
		return resp{}, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	r, err := c.Do(req)
	if err != nil {
		return resp{}, err
	}
	defer r.Body.Close()
	b, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	return resp{status: r.StatusCode, header: r.Header, body: b}, err
}

// doRetry is do that waits out 429s (Retry-After, at most 20 times), for
// the set-up requests of a check that is not about the rate limit.
func (p *probe) doRetry(ctx context.Context, c *http.Client, method, path, key string, body any) (resp, error) {
	for i := 0; ; i++ {
		r, err := p.do(ctx, c, method, path, key, body)
		if err != nil || r.status != http.StatusTooManyRequests || i == 20 {
			return r, err
		}
		wait := time.Second
		if s, err := strconv.Atoi(r.header.Get("Retry-After")); err == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// key creates an API key for a fresh tenant of this run.
func (p *probe) key(ctx context.Context, tenant string) (string, error) {
	return p.st.CreateAPIKey(ctx, "secprobe-"+tenant+"-"+p.run, "security-check")
}

// meeting creates a meeting and returns its id.
func (p *probe) meeting(ctx context.Context, c *http.Client, key string) (string, error) {
	r, err := p.doRetry(ctx, c, http.MethodPost, "/v1/meetings", key, map[string]any{"title": "security check 보안 점검"})
	if err != nil {
		return "", err
	}
	if r.status != http.StatusCreated {
		return "", fmt.Errorf("POST /v1/meetings: %d %s", r.status, short(r.body))
	}
	var m struct{ ID string }
	if err := json.Unmarshal(r.body, &m); err != nil || m.ID == "" {
		return "", fmt.Errorf("POST /v1/meetings: %s", short(r.body))
	}
	return m.ID, nil
}

// utterances posts n turns from seq from, in batches.
func (p *probe) utterances(ctx context.Context, c *http.Client, key, meeting, prefix string, from, n int) error {
	const batch = 1000
	for i := from; i < from+n; i += batch {
		var us []map[string]any
		for j := i; j < min(i+batch, from+n); j++ {
			text := fmt.Sprintf("turn %d: we agreed to ship the release on Friday. 금요일에 배포하기로 했습니다.", j)
			us = append(us, map[string]any{"segment_id": fmt.Sprintf("%s-%d", prefix, j), "speaker_id": "s" + strconv.Itoa(j%4),
				"speaker_name": "Speaker " + strconv.Itoa(j%4), "text": text, "start_ms": j * 1000, "end_ms": j*1000 + 900})
		}
		r, err := p.doRetry(ctx, c, http.MethodPost, "/v1/meetings/"+meeting+"/utterances", key, map[string]any{"utterances": us})
		if err != nil {
			return err
		}
		if r.status >= 300 {
			return fmt.Errorf("POST utterances: %d %s", r.status, short(r.body))
		}
	}
	return nil
}

func short(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// errorCode is the code of an API error body.
func errorCode(b []byte) string {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(b, &e)
	return e.Error.Code
}
