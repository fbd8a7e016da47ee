package httpapi_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// checkClientError fails unless the response is below 500 and, when it is
// an error, carries the {"error":{"code","message"}} body.
func checkClientError(t *testing.T, what string, r response) {
	t.Helper()
	if r.status >= 500 {
		t.Fatalf("%s: status %d %s", what, r.status, r.body)
	}
	if r.status >= 400 {
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if err := json.Unmarshal(r.body, &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
			t.Fatalf("%s: status %d with body %q is not an error document", what, r.status, r.body)
		}
	}
}

func nested(depth int) []byte {
	return []byte(strings.Repeat(`{"utterances":[`, depth) + strings.Repeat(`]}`, depth))
}

// Every route gets malformed ids, bodies and headers: only 4xx (or a 2xx
// for input that happens to be valid), never 5xx or a panic.
func TestMalformedRequestsNeverServerError(t *testing.T) {
	h := newHarness(t, harnessOpts{bodyLimit: 64 << 10})
	key := h.key("acme")
	m := h.createMeeting(key)
	valid, _ := json.Marshal(map[string]any{"utterances": utterances("ok", 0, 3)})
	ids := []string{m.ID, uuid.NewString(), "not-a-uuid", "%ff%fe", strings.Repeat("9", 300),
		"..%2F..%2Fetc", "'%20OR%201=1--", strings.ToUpper(m.ID), "00000000-0000-0000-0000-000000000000"}
	bodies := [][]byte{
		nil, []byte(""), []byte("{"), []byte("[]"), []byte("null"), []byte("123"), []byte(`"str"`),
		[]byte(`{"utterances":"x"}`), []byte(`{"utterances":[1]}`), []byte(`{"utterances":[{"segment_id":1}]}`),
		[]byte(`{"utterances":[{"segment_id":"a","speaker_id":"s","text":"t","start_ms":"0"}]}`),
		[]byte(`{"utterances":[{"segment_id":"a","speaker_id":"s","text":"t","start_ms":1e400}]}`),
		[]byte(`{"utterances":[{"segment_id":"a","speaker_id":"s","text":"t","confidence":-0.5}]}`),
		[]byte(`{"utterances":[{"segment_id":"a","speaker_id":"s","text":"\u0000"}]}`),
		[]byte(`{"utterances":[{"segment_id":"a","speaker_id":"s","text":"\ud800"}]}`),
		[]byte(`{"title":5}`), []byte(`{"language":"🙂"}`), []byte(`{"metadata":[1,2]}`), []byte(`{"title":"x","extra":true}`),
		[]byte("{\"title\":\"\xff\xfe\"}"), append(append([]byte{}, valid...), []byte(" trailing")...),
		bytes.Repeat([]byte("a"), 70<<10), nested(5000), valid, []byte(`{"utterances":[]}`),
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 60 {
		b := append([]byte(nil), valid...)
		for range 1 + rng.IntN(4) {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
		bodies = append(bodies, b)
	}
	routes := h.app.GetRoutes(true)
	if len(routes) < 8 {
		t.Fatalf("only %d routes registered", len(routes))
	}
	for _, rt := range routes {
		if rt.Method == http.MethodHead || rt.Path == "/" {
			continue
		}
		for _, id := range ids {
			path := strings.ReplaceAll(rt.Path, ":id", id)
			for _, b := range bodies {
				checkClientError(t, rt.Method+" "+path, h.do(rt.Method, path, key, b))
			}
			checkClientError(t, "no auth "+path, h.do(rt.Method, path, "", valid))
			checkClientError(t, "text/plain "+path, h.do(rt.Method, path, key, valid, "Content-Type", "text/plain"))
		}
	}
}

func TestBodyLimitIs413(t *testing.T) {
	h := newHarness(t, harnessOpts{bodyLimit: 4 << 10})
	key := h.key("acme")
	m := h.createMeeting(key)
	big, _ := json.Marshal(map[string]any{"utterances": utterances(strings.Repeat("x", 100), 0, 60)})
	r := h.do(http.MethodPost, "/v1/meetings/"+m.ID+"/utterances", key, big)
	if r.status != http.StatusRequestEntityTooLarge || !strings.Contains(string(r.body), "payload_too_large") {
		t.Fatalf("got %d %s", r.status, r.body)
	}
	if c := h.context(key, m.ID); c.Counters.Utterances != 0 {
		t.Fatal("rejected body was stored")
	}
}

// routeParam matches a Fiber route parameter such as :id.
var routeParam = regexp.MustCompile(`:(\w+)`)

func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	r := h.do(http.MethodGet, "/openapi.json", "", nil)
	var spec struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	r.decode(t, &spec)
	registered := map[string]bool{}
	for _, rt := range h.app.GetRoutes(true) {
		if rt.Method == http.MethodHead || rt.Path == "/" {
			continue
		}
		path := routeParam.ReplaceAllString(rt.Path, "{$1}")
		op := strings.ToLower(rt.Method)
		registered[op+" "+path] = true
		if _, ok := spec.Paths[path][op]; !ok {
			t.Errorf("route %s %s is not in openapi.json", rt.Method, path)
		}
	}
	for path, ops := range spec.Paths {
		for op := range ops {
			if !registered[op+" "+path] {
				t.Errorf("openapi.json has %s %s, which is not a route", op, path)
			}
		}
	}
}

// FuzzPostUtterances: any body on the ingest route is a 2xx or a 4xx with
// an error document.
func FuzzPostUtterances(f *testing.F) {
	seeds := []string{`{"utterances":[{"segment_id":"a","speaker_id":"s","text":"안녕"}]}`, `{`, `{"utterances":[{}]}`,
		`{"utterances":[{"segment_id":"a","speaker_id":"s","text":"x","end_ms":-1}]}`, "\xff", `{"utterances":null}`}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	h := newHarness(f, harnessOpts{bodyLimit: 64 << 10})
	key := h.key("acme")
	m := h.createMeeting(key)
	f.Fuzz(func(t *testing.T, body []byte) {
		h.t = t
		checkClientError(t, "fuzzed body", h.do(http.MethodPost, "/v1/meetings/"+m.ID+"/utterances", key, body))
	})
}
