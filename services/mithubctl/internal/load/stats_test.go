package load

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
)

func durations(ms ...int) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m) * time.Millisecond
	}
	return out
}

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	tests := []struct {
		name string
		give []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one", durations(7), 0.99, 7 * time.Millisecond},
		{"median of four is the second", durations(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{"p95 of 1..100", hundred, 0.95, 95 * time.Millisecond},
		{"p99 of 1..100", hundred, 0.99, 99 * time.Millisecond},
		{"p100", hundred, 1, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.give, tt.p); got != tt.want {
				t.Errorf("Percentile(%v) = %s, want %s", tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarizeOrdersEndpointsAndSplitsErrors(t *testing.T) {
	r := NewRecorder()
	t0 := time.Unix(1000, 0)
	for i := range 10 {
		r.Add(EPUtterances, t0, t0.Add(time.Duration(i+1)*time.Millisecond), nil)
	}
	r.Add(EPUtterances, t0, t0.Add(time.Hour), &apiclient.APIError{Status: 503, Code: "unavailable"})
	r.Add(EPAsk, t0, t0.Add(40*time.Millisecond), nil)
	r.Add(EPAsk, t0, t0.Add(time.Second), &apiclient.StreamError{Code: "llm_unavailable"})
	r.Add(EPCreate, t0, t0.Add(3*time.Millisecond), nil)

	got := Summarize(r.Results())
	if len(got) != 3 || got[0].Endpoint != EPCreate || got[1].Endpoint != EPUtterances || got[2].Endpoint != EPAsk {
		t.Fatalf("order: %+v", got)
	}
	u := got[1]
	// The failed request's hour is not a latency.
	if u.Requests != 11 || u.Errors != 1 || u.Max != 10*time.Millisecond || u.P50 != 5*time.Millisecond {
		t.Fatalf("utterances: %+v", u)
	}
	if u.ErrorKinds["HTTP 503 unavailable"] != 1 || got[2].ErrorKinds["stream error llm_unavailable"] != 1 {
		t.Fatalf("kinds: %v %v", u.ErrorKinds, got[2].ErrorKinds)
	}
	if ok, failed := r.Counts(); ok != 12 || failed != 2 {
		t.Fatalf("counts %d ok %d failed", ok, failed)
	}
}

func TestErrorKind(t *testing.T) {
	tests := []struct {
		give error
		want string
	}{
		{&apiclient.APIError{Status: 400, Code: "invalid"}, "HTTP 400 invalid"},
		{fmt.Errorf("post utterances m: %w", &apiclient.APIError{Status: 502}), "HTTP 502"},
		{fmt.Errorf("ask: %w", context.DeadlineExceeded), "timeout"},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), "connection refused"},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), "connection reset"},
		{apiclient.ErrAskIncomplete, "stream ended early"},
		{&mismatchError{sent: 2, inserted: 1}, "ingest count mismatch"},
		{errors.New("회의를 찾을 수 없습니다"), "회의를 찾을 수 없습니다"},
	}
	for _, tt := range tests {
		if got := ErrorKind(tt.give); got != tt.want {
			t.Errorf("ErrorKind(%v) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		give    string
		want    time.Duration
		wantErr bool
	}{
		{"2s", 2 * time.Second, false},
		{"0.5", 2 * time.Second, false},
		{"4", 250 * time.Millisecond, false},
		{" 500ms ", 500 * time.Millisecond, false},
		{"0", 0, true},
		{"-1s", 0, true},
		{"fast", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.give)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseRate(%q) = %s, %v; want %s, error %v", tt.give, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	base := Options{DataDir: "/data"}.withDefaults()
	tests := []struct {
		name   string
		change func(*Options)
		ok     bool
	}{
		{"defaults", func(*Options) {}, true},
		{"no meetings", func(o *Options) { o.Meetings = -1 }, false},
		{"warm-up as long as the run", func(o *Options) { o.Warmup = o.Duration }, false},
		{"negative ask interval", func(o *Options) { o.AskEvery = -time.Second }, false},
		{"no data", func(o *Options) { o.DataDir = "" }, false},
	}
	for _, tt := range tests {
		o := base
		tt.change(&o)
		if err := o.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v", tt.name, err)
		}
	}
}
