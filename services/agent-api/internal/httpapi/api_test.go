package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func utterances(prefix string, from, n int) []utterance {
	out := make([]utterance, n)
	for i := range out {
		k := from + i
		speaker := []string{"김민수", "Alice"}[k%2]
		text := fmt.Sprintf("발화 %d: 다음 분기 로드맵을 정리합시다", k)
		if k%2 == 1 {
			text = fmt.Sprintf("turn %d: let's review the roadmap for next quarter", k)
		}
		out[i] = utterance{SegmentID: fmt.Sprintf("%s-%05d", prefix, k), SpeakerID: fmt.Sprint("spk", k%2), SpeakerName: speaker,
			Text: text, StartMS: int64(k) * 1000, EndMS: int64(k)*1000 + 900, Confidence: 0.9}
	}
	return out
}

func TestMeetingLifecycle(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	if m.Status != "active" || m.Counters.LastSeq != -1 {
		t.Fatalf("new meeting: %+v", m)
	}
	in := h.post(key, m.ID, utterances("seg", 0, 30))
	if in.Inserted != 30 || in.Duplicates != 0 || in.Cursor != 29 {
		t.Fatalf("ingest: %+v", in)
	}
	r := h.do(http.MethodGet, "/v1/meetings/"+m.ID, key, nil)
	var got meeting
	r.decode(t, &got)
	if got.Counters.Utterances != 30 || got.Counters.LastSeq != 29 || got.Counters.Tokens == 0 {
		t.Fatalf("counters: %+v", got.Counters)
	}
	c := h.context(key, m.ID)
	if len(c.L0.Turns) != 25 || c.L0.Turns[0].Seq != 5 || c.L0.Turns[24].Seq != 29 || c.Counters.Tokens != got.Counters.Tokens {
		t.Fatalf("L0: %d turns from %d, tokens %d vs %d", len(c.L0.Turns), c.L0.Turns[0].Seq, c.Counters.Tokens, got.Counters.Tokens)
	}
	r = h.do(http.MethodPost, "/v1/meetings/"+m.ID+"/end", key, nil)
	r.decode(t, &got)
	if r.status != http.StatusOK || got.Status != "ended" {
		t.Fatalf("end: %d %s", r.status, r.body)
	}
}

func TestIngestTwiceStoresOnce(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	batch := utterances("seg", 0, 40)
	first := h.post(key, m.ID, batch)
	second := h.post(key, m.ID, batch)
	if first.Inserted != 40 || second.Inserted != 0 || second.Duplicates != 40 || second.Cursor != 39 {
		t.Fatalf("first %+v second %+v", first, second)
	}
	c := h.context(key, m.ID)
	if c.Counters.Utterances != 40 {
		t.Fatalf("context counts %d utterances", c.Counters.Utterances)
	}
}

// Concurrent writers to one meeting commit in an order the handlers do not
// control; the cached context must still advance in seq order and equal a
// context rebuilt from Postgres.
func TestConcurrentIngestKeepsContextConsistent(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	h.context(key, m.ID) // warm the cache
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range 5 {
				h.post(key, m.ID, utterances(fmt.Sprint("w", w), b*7, 7))
			}
		}()
	}
	wg.Wait()
	live := h.context(key, m.ID)

	fresh := newHarnessOnStore(t, h)
	rebuilt := fresh.context(key, m.ID)
	if live.Cursor != 6*35-1 || !reflect.DeepEqual(live, rebuilt) {
		t.Fatalf("live context differs from rebuilt one:\nlive    %+v\nrebuilt %+v", live.Counters, rebuilt.Counters)
	}
}

func TestSyncLoadsRowsWrittenElsewhere(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	h.post(key, m.ID, utterances("api", 0, 3))
	// Another process (the realtime worker) writes straight to Postgres.
	other := newHarnessOnStore(t, h)
	other.post(key, m.ID, utterances("worker", 0, 4))
	// The sync applies them to the cached context.
	r := h.do(http.MethodPost, "/v1/meetings/"+m.ID+"/sync", key, nil)
	var s struct{ Applied, Cursor int }
	r.decode(t, &s)
	if r.status != http.StatusOK || s.Applied != 4 || s.Cursor != 6 {
		t.Fatalf("sync: %d %s", r.status, r.body)
	}
	if c := h.context(key, m.ID); c.Cursor != 6 || c.L0.Turns[6].SegmentID != "worker-00003" {
		t.Fatalf("after sync: cursor %d", c.Cursor)
	}
}

func TestContextReadsCatchUpWithRowsWrittenElsewhere(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	h.post(key, m.ID, utterances("api", 0, 3))
	other := newHarnessOnStore(t, h)
	other.post(key, m.ID, utterances("worker", 0, 4))
	// No notification reaches this harness: the read compares the cached
	// context with the meeting row and loads what it misses.
	if c := h.context(key, m.ID); c.Cursor != 6 || c.L0.Turns[6].SegmentID != "worker-00003" {
		t.Fatalf("context after a write elsewhere: cursor %d", c.Cursor)
	}
}

func TestEvictedContextRebuildsEqual(t *testing.T) {
	h := newHarness(t, harnessOpts{cacheSize: 1})
	key := h.key("acme")
	a, b := h.createMeeting(key), h.createMeeting(key)
	h.post(key, a.ID, utterances("a", 0, 60))
	before := h.context(key, a.ID)
	h.post(key, b.ID, utterances("b", 0, 5)) // evicts a
	if h.cache.Len() != 1 {
		t.Fatalf("cache holds %d meetings", h.cache.Len())
	}
	if after := h.context(key, a.ID); !reflect.DeepEqual(before, after) {
		t.Fatalf("rebuilt context differs")
	}
}

func TestTenantIsolation(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	keyA, keyB := h.key("tenant-a"), h.key("tenant-b")
	m := h.createMeeting(keyA)
	h.post(keyA, m.ID, utterances("a", 0, 3))
	h.context(keyA, m.ID) // cached under tenant A
	body, _ := json.Marshal(map[string]any{"utterances": utterances("b", 0, 1)})
	tests := []struct {
		method, path string
		body         []byte
	}{
		{http.MethodGet, "/v1/meetings/" + m.ID, nil},
		{http.MethodGet, "/v1/meetings/" + m.ID + "/context", nil},
		{http.MethodPost, "/v1/meetings/" + m.ID + "/utterances", body},
		{http.MethodPost, "/v1/meetings/" + m.ID + "/sync", nil},
		{http.MethodPost, "/v1/meetings/" + m.ID + "/end", nil},
	}
	for _, tt := range tests {
		r := h.do(tt.method, tt.path, keyB, tt.body)
		if r.status != http.StatusNotFound || strings.Contains(string(r.body), "a-0000") {
			t.Errorf("tenant B %s %s: %d %s", tt.method, tt.path, r.status, r.body)
		}
	}
	c := h.context(keyA, m.ID)
	if c.Counters.Utterances != 3 {
		t.Fatalf("tenant B changed tenant A's meeting: %d utterances", c.Counters.Utterances)
	}
	var got meeting
	h.do(http.MethodGet, "/v1/meetings/"+m.ID, keyA, nil).decode(t, &got)
	if got.Status != "active" {
		t.Fatalf("tenant B ended tenant A's meeting")
	}
}

func TestAuthRequired(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	tests := []struct {
		give string
	}{{""}, {"Bearer"}, {"Bearer nope"}, {"Basic Zm9vOmJhcg=="}}
	for _, tt := range tests {
		r := h.do(http.MethodPost, "/v1/meetings", "", []byte(`{}`), "Authorization", tt.give)
		if r.status != http.StatusUnauthorized || !strings.Contains(string(r.body), `"unauthenticated"`) {
			t.Errorf("Authorization %q: %d %s", tt.give, r.status, r.body)
		}
	}
	if r := h.do(http.MethodGet, "/healthz", "", nil); r.status != http.StatusOK {
		t.Errorf("healthz needs no key: %d", r.status)
	}
}

// A recorded meeting replayed live keeps the time it started; a
// started_at that is not RFC 3339 or lies in the future is refused and
// creates nothing.
func TestCreateMeetingStartedAt(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	type withStart struct {
		ID        string    `json:"id"`
		StartedAt time.Time `json:"started_at"`
	}
	r := h.json(http.MethodPost, "/v1/meetings", key, map[string]string{"title": "launch review", "started_at": "2026-03-12T10:00:00+09:00"})
	var created, got withStart
	r.decode(t, &created)
	want := time.Date(2026, 3, 12, 1, 0, 0, 0, time.UTC)
	if r.status != http.StatusCreated || !created.StartedAt.Equal(want) {
		t.Fatalf("create: %d %s, want 201 started at %s", r.status, r.body, want)
	}
	h.do(http.MethodGet, "/v1/meetings/"+created.ID, key, nil).decode(t, &got)
	if !got.StartedAt.Equal(want) {
		t.Errorf("stored started_at %s, want %s", got.StartedAt, want)
	}
	for _, tc := range []struct{ give, wantErr string }{
		{"2026-03-12", "is not an RFC 3339 time"},
		{time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "is in the future"},
	} {
		r := h.json(http.MethodPost, "/v1/meetings", key, map[string]string{"title": "x", "started_at": tc.give})
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), tc.wantErr) {
			t.Errorf("started_at %q: %d %s, want 400 saying %q", tc.give, r.status, r.body, tc.wantErr)
		}
	}
	var list struct {
		Meetings []withStart `json:"meetings"`
	}
	h.do(http.MethodGet, "/v1/meetings", key, nil).decode(t, &list)
	if len(list.Meetings) != 1 {
		t.Errorf("%d meetings after two refusals, want the one created", len(list.Meetings))
	}
}
