package apiclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"time"

	"github.com/mithub/mithub/pkg/askmode"
)

// sse writes one event the way agent-api does.
func sse(w io.Writer, event string, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func streamHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
}

func TestAskStreamDeliversEventsInOrder(t *testing.T) {
	cit := Citation{N: 1, Seq: 12, TranscriptID: 345, SpeakerID: "u1", SpeakerName: "김민수",
		StartMS: 61000, Time: "01:01", Text: "예산은 다음 주에 확정합니다.", Confidence: 0.93}
	done := AskResult{Answer: "예산은 다음 주에 확정합니다 [1]. The budget is next week.", Citations: []Citation{cit},
		Provider: "local", ThreadID: "th-1", Mode: askmode.Answer, Warnings: []string{}, PendingTurns: 2, ContextTokens: 120}
	srv, reqs := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		io.WriteString(w, ": keep-alive\n\n")
		sse(w, AskEventToken, map[string]string{"text": "예산은 다음 주에 "})
		sse(w, AskEventToken, map[string]string{"text": "확정합니다 [1]. The budget is next week."})
		sse(w, AskEventCitation, cit)
		sse(w, AskEventDone, done)
	})
	c := New(srv.URL, "dev-key")
	since := int64(5000)
	var (
		names  []string
		tokens strings.Builder
		cits   []Citation
	)
	res, err := c.AskStream(t.Context(), "m-1", AskRequest{Question: "헤이 밋허브 예산 언제 확정돼?", AskerID: "u1",
		AskerName: "김민수", SinceMS: &since}, func(ev AskEvent) error {
		names = append(names, ev.Name)
		tokens.WriteString(ev.Token)
		if ev.Citation != nil {
			cits = append(cits, *ev.Citation)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res, done) {
		t.Errorf("result = %+v\nwant %+v", res, done)
	}
	if want := []string{"token", "token", "citation", "done"}; !reflect.DeepEqual(names, want) {
		t.Errorf("events = %v, want %v", names, want)
	}
	if tokens.String() != done.Answer {
		t.Errorf("tokens joined = %q, want the answer %q", tokens.String(), done.Answer)
	}
	if !reflect.DeepEqual(cits, []Citation{cit}) {
		t.Errorf("citations = %+v", cits)
	}
	r := <-reqs
	if r.method != http.MethodPost || r.path != "/v1/meetings/m-1/ask" || r.auth != "Bearer dev-key" {
		t.Errorf("request = %s %s auth %q", r.method, r.path, r.auth)
	}
	var body map[string]any
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"question": "헤이 밋허브 예산 언제 확정돼?", "asker_id": "u1", "asker_name": "김민수", "since_ms": 5000.0}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("body = %v, want %v", body, want)
	}
}

func TestAskStreamSendsEventStreamAccept(t *testing.T) {
	accept := make(chan string, 1)
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		accept <- r.Header.Get("Accept")
		streamHeaders(w)
		sse(w, AskEventDone, AskResult{Answer: "ok"})
	})
	if _, err := New(srv.URL, "k").AskStream(t.Context(), "m", AskRequest{Question: "q"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := <-accept; got != "text/event-stream" {
		t.Errorf("Accept = %q", got)
	}
}

func TestAskStreamParsesMultilineDataAndCRLF(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		io.WriteString(w, "event: token\r\ndata: {\"text\":\r\ndata: \"hello\"}\r\n\r\n")
		io.WriteString(w, "event: done\r\ndata: {\"answer\":\"hello\"}\r\n\r\n")
	})
	var tok string
	res, err := New(srv.URL, "k").AskStream(t.Context(), "m", AskRequest{Question: "q"}, func(ev AskEvent) error {
		tok += ev.Token
		return nil
	})
	if err != nil || res.Answer != "hello" || tok != "hello" {
		t.Errorf("AskStream = %+v, %v; tokens %q", res, err, tok)
	}
}

func TestAskStreamErrors(t *testing.T) {
	stop := errors.New("stop")
	tests := []struct {
		name    string
		handler http.HandlerFunc
		fn      func(AskEvent) error
		check   func(error) bool
	}{
		{
			name:    "refused before streaming",
			handler: reply(http.StatusNotFound, `{"error":{"code":"not_found","message":"meeting not found"}}`),
			check: func(err error) bool {
				var ae *APIError
				return errors.As(err, &ae) && ae.Status == http.StatusNotFound && ae.Code == "not_found"
			},
		},
		{
			name: "error event mid-stream",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				streamHeaders(w)
				sse(w, AskEventToken, map[string]string{"text": "partial"})
				io.WriteString(w, `event: error`+"\n"+`data: {"error":{"code":"unavailable","message":"the model did not answer"}}`+"\n\n")
			},
			check: func(err error) bool {
				var se *StreamError
				return errors.As(err, &se) && se.Code == "unavailable" && se.Message == "the model did not answer"
			},
		},
		{
			name: "stream cut before done",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				streamHeaders(w)
				sse(w, AskEventToken, map[string]string{"text": "partial"})
			},
			check: func(err error) bool { return errors.Is(err, ErrAskIncomplete) },
		},
		{
			name: "not an event stream",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"answer":"x"}`)
			},
			check: func(err error) bool { return err != nil && strings.Contains(err.Error(), "not an event stream") },
		},
		{
			name: "callback stops",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				streamHeaders(w)
				sse(w, AskEventToken, map[string]string{"text": "a"})
				sse(w, AskEventDone, AskResult{Answer: "a"})
			},
			fn:    func(AskEvent) error { return stop },
			check: func(err error) bool { return errors.Is(err, stop) },
		},
		{
			name: "bad token json",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				streamHeaders(w)
				io.WriteString(w, "event: token\ndata: {nope\n\n")
			},
			check: func(err error) bool { return err != nil && strings.Contains(err.Error(), "decode token event") },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := newServer(t, tt.handler)
			_, err := New(srv.URL, "k", WithRetryPolicy(NoRetry())).AskStream(t.Context(), "m", AskRequest{Question: "q"}, tt.fn)
			if !tt.check(err) {
				t.Errorf("AskStream error = %v", err)
			}
		})
	}
	if _, err := New("http://127.0.0.1:1", "k").AskStream(t.Context(), "", AskRequest{}, nil); !errors.Is(err, ErrNoMeetingID) {
		t.Errorf("empty meeting id = %v", err)
	}
}

func TestAskJSONMode(t *testing.T) {
	srv, reqs := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/json" {
			t.Errorf("Accept = %q", r.Header.Get("Accept"))
		}
		reply(http.StatusOK, `{"answer":"We decided to ship on Friday [1].","citations":[{"n":1,"seq":3,"speaker_id":"b",
			"speaker_name":"Bob","start_ms":1000,"time":"00:01","text":"Let's ship Friday.","confidence":1,"low_confidence":false}],
			"provider":"local","thread_id":"t-9","mode":"answer","warnings":[],"pending_turns":0,"context_tokens":40}`)(w, r)
	})
	res, err := New(srv.URL, "k").Ask(t.Context(), "m-2", AskRequest{Question: "what did we decide?", Mode: askmode.Answer})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "We decided to ship on Friday [1]." || res.ThreadID != "t-9" || len(res.Citations) != 1 ||
		res.Citations[0].SpeakerName != "Bob" || res.Citations[0].Seq != 3 {
		t.Errorf("result = %+v", res)
	}
	r := <-reqs
	if r.path != "/v1/meetings/m-2/ask" || !strings.Contains(string(r.body), `"mode":"answer"`) {
		t.Errorf("request %s %s", r.path, r.body)
	}
	srv2, _ := newServer(t, reply(http.StatusBadRequest, `{"error":{"code":"invalid","message":"question is required"}}`))
	_, err = New(srv2.URL, "k").Ask(t.Context(), "m-2", AskRequest{})
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || ae.Message != "question is required" {
		t.Errorf("bad request = %v", err)
	}
}

func TestAskStreamRetriesRefusedWithinMaxElapsedTime(t *testing.T) {
	addr := freeAddr(t)
	c := New("http://"+addr, "k", WithRetryPolicy(RetryPolicy{
		InitialInterval: time.Second, MaxInterval: time.Hour, Multiplier: 2, MaxElapsedTime: 10 * time.Second,
	}))
	fc := useFakeClock(c)

	_, err := c.AskStream(t.Context(), "m", AskRequest{Question: "q"}, nil)
	if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), addr) {
		t.Fatalf("err = %v, want the refused connection to %s", err, addr)
	}
	// Delays 1s, 2s, 4s fit in 10s; the next (8s) would end at 15s.
	if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}; !slices.Equal(fc.delays, want) {
		t.Errorf("delays = %v, want %v", fc.delays, want)
	}
}
