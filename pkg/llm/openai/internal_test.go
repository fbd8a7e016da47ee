package openai

import (
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name string
		give string
		want []string
	}{
		{"simple", "data: a\n\ndata: b\n\n", []string{"a", "b"}},
		{"multi-line", "data: {\"x\":\ndata: 1}\n\n", []string{"{\"x\":\n1}"}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"comments and fields", ": ping\nevent: x\nid: 1\nretry: 5\ndata: a\n\n", []string{"a"}},
		{"no space", "data:a\n\n", []string{"a"}},
		{"no final blank line", "data: a\n\ndata: [DONE]", []string{"a", "[DONE]"}},
		{"blank lines only", "\n\n\n", nil},
		{"empty data", "data:\n\n", []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &sseReader{r: newLineReader(strings.NewReader(tt.give))}
			var got []string
			for {
				d, err := r.next(func() {})
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, d)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		give http.Header
		want time.Duration
	}{
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{"fraction", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{"date", http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second},
		{"milliseconds", http.Header{"Retry-After-Ms": {"250"}}, 250 * time.Millisecond},
		{"none", http.Header{}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"negative", http.Header{"Retry-After": {"-4"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryAfter(tt.give, now); got != tt.want {
				t.Errorf("retryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBackoffFullJitter(t *testing.T) {
	c := &Client{cfg: Config{BackoffBase: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond}}
	for n := range 40 {
		ceiling := min(50*time.Millisecond, 10*time.Millisecond<<min(n, 20))
		for range 20 {
			if d := c.backoff(n); d < 0 || d > ceiling {
				t.Fatalf("backoff(%d) = %v, want within [0, %v]", n, d, ceiling)
			}
		}
	}
}

func TestShorten(t *testing.T) {
	got := shorten("회의록\n요약 "+strings.Repeat("가", 200), 20)
	if !strings.HasSuffix(got, "…") || len(got) > 20+len("…") || strings.ContainsRune(got, '\n') {
		t.Errorf("shorten = %q", got)
	}
}
