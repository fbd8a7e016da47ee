package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
)

type streamEvent struct {
	Event, ID string
	Data      []byte
}

// eventWait bounds how long a test waits for an event before failing.
const eventWait = 30 * time.Second

// openEvents opens an event stream on a connection of its own; the events
// arrive on the channel, which is closed when the stream ends. cancel
// closes the connection.
func openEvents(t *testing.T, h *harness, key, path string) (<-chan streamEvent, context.CancelFunc) {
	t.Helper()
	return openEventsWith(t, h, key, path, "text/event-stream")
}

func openEventsWith(t *testing.T, h *harness, key, path, accept string) (<-chan streamEvent, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Accept", accept)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ch := make(chan streamEvent, 4096)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		var ev streamEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Event != "" {
					ch <- ev
				}
				ev = streamEvent{}
			case strings.HasPrefix(line, ":"):
			case strings.HasPrefix(line, "event: "):
				ev.Event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "id: "):
				ev.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				ev.Data = []byte(strings.TrimPrefix(line, "data: "))
			}
		}
	}()
	return ch, cancel
}

// waitEvent returns the first event for which ok is true, failing when
// the stream ends or eventWait passes first. Every event seen is passed
// to ok.
func waitEvent(t *testing.T, ch <-chan streamEvent, what string, ok func(streamEvent) bool) streamEvent {
	t.Helper()
	deadline := time.After(eventWait)
	for {
		select {
		case ev, open := <-ch:
			if !open {
				t.Fatalf("stream ended while waiting for %s", what)
			}
			if ok(ev) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s within %s", what, eventWait)
		}
	}
}

func decodeEvent(t *testing.T, ev streamEvent, v any) {
	t.Helper()
	if err := json.Unmarshal(ev.Data, v); err != nil {
		t.Fatalf("event %s data %s: %v", ev.Event, ev.Data, err)
	}
}

// rowTracker checks that transcript events carry every row once, in seq
// order.
type rowTracker struct {
	t    *testing.T
	last int
	rows []transcriptRow
}

func (r *rowTracker) saw(ev streamEvent) {
	r.t.Helper()
	if ev.Event != "transcript" {
		return
	}
	var body struct{ Rows []transcriptRow }
	decodeEvent(r.t, ev, &body)
	for _, row := range body.Rows {
		if row.Seq != r.last+1 {
			r.t.Fatalf("transcript event has seq %d after %d", row.Seq, r.last)
		}
		r.last = row.Seq
		r.rows = append(r.rows, row)
	}
	if len(body.Rows) == 0 || ev.ID != strconv.Itoa(r.last) {
		r.t.Fatalf("transcript event with %d rows has id %q, last seq %d", len(body.Rows), ev.ID, r.last)
	}
}

func TestMeetingEventsStreamTheMeeting(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	tenant, err := h.store.Authenticate(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	m := h.createMeeting(key)
	h.post(key, m.ID, utterances("seg", 0, 3))

	ch, _ := openEvents(t, h, key, "/v1/meetings/"+m.ID+"/events")
	if ev := <-ch; ev.Event != "ready" {
		t.Fatalf("first event %s %s", ev.Event, ev.Data)
	}
	rows := &rowTracker{t: t, last: -1}
	var status string
	seen := func(ev streamEvent) {
		rows.saw(ev)
		if ev.Event == "meeting" {
			var mj meeting
			decodeEvent(t, ev, &mj)
			status = mj.Status
		}
	}
	waitEvent(t, ch, "rows 0..2", func(ev streamEvent) bool { seen(ev); return rows.last == 2 })
	if !strings.Contains(rows.rows[0].Text, "로드맵") || rows.rows[1].SpeakerName != "Alice" {
		t.Fatalf("rows %+v", rows.rows)
	}

	// Stored through the API: the ingest wakes the stream.
	h.post(key, m.ID, utterances("seg", 3, 30))
	waitEvent(t, ch, "rows 3..32", func(ev streamEvent) bool { seen(ev); return rows.last == 32 })

	// 33 turns: the first chunk of 25 is segmented in the background and
	// reaches the stream by its poll.
	var topics struct {
		L1Cursor int                `json:"l1_cursor"`
		Topics   []meetingctx.Topic `json:"topics"`
	}
	waitEvent(t, ch, "topics", func(ev streamEvent) bool {
		seen(ev)
		if ev.Event != "topics" {
			return false
		}
		decodeEvent(t, ev, &topics)
		return len(topics.Topics) > 0
	})
	if topics.L1Cursor < 24 || topics.Topics[0].StartSeq != 0 || topics.Topics[len(topics.Topics)-1].EndSeq != topics.L1Cursor {
		t.Fatalf("topics event: cursor %d, %+v", topics.L1Cursor, topics.Topics)
	}
	var pending struct {
		Cursor       int `json:"cursor"`
		L1Cursor     int `json:"l1_cursor"`
		PendingTurns int `json:"pending_turns"`
	}
	waitEvent(t, ch, "pending after the topics", func(ev streamEvent) bool {
		seen(ev)
		if ev.Event != "pending" {
			return false
		}
		decodeEvent(t, ev, &pending)
		return pending.L1Cursor == topics.L1Cursor
	})
	if pending.Cursor != 32 || pending.PendingTurns != 32-pending.L1Cursor {
		t.Fatalf("pending %+v", pending)
	}

	// Written straight to Postgres (another process): the poll finds it.
	_, err = h.store.Ingest(context.Background(), tenant.ID, m.ID, []store.Utterance{
		{SegmentID: "worker-1", SpeakerID: "spk9", SpeakerName: "박지영", Text: "결정: 다음 주 화요일에 출시합니다", StartMS: 40_000, EndMS: 42_000, Confidence: 1, Tokens: 9, Source: "livekit"},
	})
	if err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ch, "the row written elsewhere", func(ev streamEvent) bool { seen(ev); return rows.last == 33 })
	if got := rows.rows[33]; got.SpeakerName != "박지영" || got.Text != "결정: 다음 주 화요일에 출시합니다" || got.Source != "livekit" {
		t.Fatalf("row 33 = %+v", got)
	}

	// Ending the meeting changes its status on the stream.
	if r := h.do(http.MethodPost, "/v1/meetings/"+m.ID+"/end", key, nil); r.status != http.StatusOK {
		t.Fatalf("end: %d %s", r.status, r.body)
	}
	waitEvent(t, ch, "the ended status", func(ev streamEvent) bool { seen(ev); return status == "ended" })
}

func TestMeetingEventsSpeakersAndResume(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	h.post(key, m.ID, utterances("seg", 0, 5))

	ch, _ := openEvents(t, h, key, "/v1/meetings/"+m.ID+"/events?after_seq=2")
	first := waitEvent(t, ch, "rows after 2", func(ev streamEvent) bool { return ev.Event == "transcript" })
	var body struct{ Rows []transcriptRow }
	decodeEvent(t, first, &body)
	if got := seqsOf(body.Rows); len(got) != 2 || got[0] != 3 || got[1] != 4 || first.ID != "4" {
		t.Fatalf("resumed rows %v, id %q", got, first.ID)
	}
	var sp struct{ Speakers []meetingctx.Speaker }
	waitEvent(t, ch, "speakers", func(ev streamEvent) bool {
		if ev.Event != "speakers" {
			return false
		}
		decodeEvent(t, ev, &sp)
		return len(sp.Speakers) == 2
	})
	names := map[string]meetingctx.Speaker{}
	for _, s := range sp.Speakers {
		names[s.Name] = s
	}
	// 5 turns of 900 ms: 3 by 김민수, 2 by Alice.
	if names["김민수"].Turns != 3 || names["김민수"].TalkMS != 2700 || names["Alice"].TalkMS != 1800 {
		t.Fatalf("speakers %+v", sp.Speakers)
	}
}

func TestMeetingEventsRejectBadRequests(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key, other := h.key("acme"), h.key("other")
	m := h.createMeeting(key)
	base := "/v1/meetings/" + m.ID + "/events"
	tests := []struct {
		give       string
		key        string
		wantStatus int
	}{
		{base + "?after_seq=-5", key, http.StatusBadRequest},
		{base + "?after_seq=abc", key, http.StatusBadRequest},
		{base + "?after_seq=4294967296", key, http.StatusBadRequest},
		{"/v1/meetings/nope/events", key, http.StatusBadRequest},
		{"/v1/meetings/00000000-0000-0000-0000-000000000000/events", key, http.StatusNotFound},
		{base, other, http.StatusNotFound},
		{base, "", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		r := h.do(http.MethodGet, tt.give, tt.key, nil, "Accept", "text/event-stream")
		if r.status != tt.wantStatus || !bytes.Contains(r.body, []byte(`"error"`)) {
			t.Errorf("GET %s: %d %s, want %d", tt.give, r.status, r.body, tt.wantStatus)
		}
	}
	// The stream never ends, so a client has to ask for it.
	for _, accept := range []string{"", "application/json", "text/html, application/xhtml+xml"} {
		r := h.do(http.MethodGet, base, key, nil, "Accept", accept)
		if r.status != http.StatusNotAcceptable || !bytes.Contains(r.body, []byte(`"not_acceptable"`)) {
			t.Errorf("GET %s with Accept %q: %d %s", base, accept, r.status, r.body)
		}
	}
	for _, accept := range []string{"text/event-stream", "*/*", "application/json;q=0.9, text/*;q=0.8"} {
		ch, cancel := openEventsWith(t, h, key, base, accept)
		waitEvent(t, ch, "ready with Accept "+accept, func(ev streamEvent) bool { return ev.Event == "ready" })
		cancel()
	}
}

// waitOpenConns polls the server's open connection count until it is
// want, failing after within.
func waitOpenConns(t *testing.T, h *harness, want int32, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		n := h.app.Server().GetOpenConnectionsCount()
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d open connections, want %d", n, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A client that goes away ends its stream when it closes the connection,
// not at the stream's next write: an idle stream writes only a heartbeat
// every 15 s, so the deadline below is well short of that.
func TestMeetingEventsEndWhenTheClientLeaves(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	http.DefaultClient.CloseIdleConnections()
	waitOpenConns(t, h, 0, eventWait)

	ch, cancel := openEvents(t, h, key, "/v1/meetings/"+m.ID+"/events")
	waitEvent(t, ch, "ready", func(ev streamEvent) bool { return ev.Event == "ready" })
	waitEvent(t, ch, "the first pending event", func(ev streamEvent) bool { return ev.Event == "pending" })
	if n := h.app.Server().GetOpenConnectionsCount(); n != 1 {
		t.Fatalf("%d open connections with one stream", n)
	}
	cancel()
	waitOpenConns(t, h, 0, 5*time.Second)
}

// Shutdown ends open streams, so it completes instead of waiting for
// them until its timeout.
func TestMeetingEventsEndOnShutdown(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	h.post(key, m.ID, utterances("seg", 0, 2))
	ch, _ := openEvents(t, h, key, "/v1/meetings/"+m.ID+"/events")
	waitEvent(t, ch, "rows", func(ev streamEvent) bool { return ev.Event == "transcript" })

	if err := h.app.ShutdownWithTimeout(eventWait); err != nil {
		t.Fatalf("shutdown with a stream open: %v", err)
	}
	for range ch {
	}
}
