package apiclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// writeSSE writes one event the way agent-api does: an event line, then
// one data line per line of data, then a blank line.
func writeSSE(b *bytes.Buffer, name, data string) {
	if name != "" {
		fmt.Fprintf(b, "event: %s\n", name)
	}
	for _, line := range strings.Split(data, "\n") {
		fmt.Fprintf(b, "data: %s\n", line)
	}
	b.WriteString("\n")
}

// FuzzReadSSE parses fuzzed event streams: names are single lines, and an
// event written after the fuzzed stream's last blank line comes back with
// its name and data exactly.
func FuzzReadSSE(f *testing.F) {
	f.Fuzz(func(t *testing.T, stream []byte, name, data string) {
		var events [][2]string
		err := readSSE(bytes.NewReader(stream), func(n string, d []byte) (bool, error) {
			if n == "" || strings.ContainsAny(n, "\r\n") {
				t.Fatalf("event name %q", n)
			}
			events = append(events, [2]string{n, string(d)})
			return true, nil
		})
		if err != nil {
			return // a line over the limit
		}
		if strings.ContainsAny(name, "\r\n") || strings.Contains(data, "\r") {
			return
		}
		var b bytes.Buffer
		b.Write(stream)
		b.WriteString("\n\n")
		writeSSE(&b, name, data)
		events = events[:0]
		if err := readSSE(&b, func(n string, d []byte) (bool, error) {
			events = append(events, [2]string{n, string(d)})
			return true, nil
		}); err != nil {
			t.Fatalf("readSSE: %v", err)
		}
		want := name
		if want == "" {
			want = "message"
		}
		if len(events) == 0 || events[len(events)-1] != [2]string{want, data} {
			t.Fatalf("last event %q, want %q", events, [2]string{want, data})
		}
	})
}

// FuzzAskStream reads an ask stream built from fuzzed tokens, answer and
// error text: tokens arrive in order and exactly, the done event's result
// is returned, an error event becomes a *StreamError, and a stream without
// either is ErrAskIncomplete.
func FuzzAskStream(f *testing.F) {
	f.Fuzz(func(t *testing.T, tok1, tok2, answer string, ending uint8) {
		var b bytes.Buffer
		for _, tok := range []string{tok1, tok2} {
			raw, _ := json.Marshal(map[string]string{"text": tok})
			writeSSE(&b, AskEventToken, string(raw))
		}
		switch ending % 3 {
		case 0:
			raw, _ := json.Marshal(AskResult{Answer: answer, Provider: "local", Warnings: []string{"경고"}})
			writeSSE(&b, AskEventDone, string(raw))
		case 1:
			raw, _ := json.Marshal(map[string]any{"error": map[string]string{"code": "unavailable", "message": answer}})
			writeSSE(&b, AskEventError, string(raw))
		}
		var got []string
		res, err := readAskStream(&b, func(ev AskEvent) error {
			if ev.Name == AskEventToken {
				got = append(got, ev.Token)
			}
			return nil
		})
		// JSON carries invalid UTF-8 as U+FFFD.
		want := func(s string) string {
			raw, _ := json.Marshal(s)
			var out string
			_ = json.Unmarshal(raw, &out)
			return out
		}
		if len(got) != 2 || got[0] != want(tok1) || got[1] != want(tok2) {
			t.Fatalf("tokens %q, want %q and %q", got, tok1, tok2)
		}
		var se *StreamError
		switch ending % 3 {
		case 0:
			if err != nil || res.Answer != want(answer) || res.Provider != "local" {
				t.Fatalf("result %+v, %v; want answer %q", res, err, answer)
			}
		case 1:
			if !errors.As(err, &se) || se.Code != "unavailable" || se.Message != want(answer) {
				t.Fatalf("error %v, want a StreamError with message %q", err, answer)
			}
		default:
			if !errors.Is(err, ErrAskIncomplete) {
				t.Fatalf("error %v, want ErrAskIncomplete", err)
			}
		}
	})
}
