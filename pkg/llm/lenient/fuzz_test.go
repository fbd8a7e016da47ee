package lenient

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func FuzzExtract(f *testing.F) {
	f.Add(`{"a": 1}`)
	f.Add("```json\n[1, 2,\n```")
	f.Fuzz(func(t *testing.T, text string) {
		raw, err := Extract(text)
		if err == nil && !json.Valid(raw) {
			t.Fatalf("Extract(%q) = %q: not valid JSON", text, raw)
		}
		// Every candidate the parser accepts must be valid on its own,
		// not only after Extract's final check.
		text = strings.ToValidUTF8(text, "\uFFFD")
		for i, tries := 0, 0; i < len(text) && tries < 8; i++ {
			if text[i] != '{' && text[i] != '[' {
				continue
			}
			tries++
			if out, _, ok := parse(text[i:]); ok && !json.Valid(out) {
				t.Fatalf("parse(%q) = %q: not valid JSON", text[i:], out)
			}
		}
		var v any
		_ = Decode(text, &v)
	})
}

// fuzzTopic mirrors the shape of a segmentation reply.
type fuzzTopic struct {
	Title    string   `json:"title"`
	Summary  string   `json:"summary"`
	Keywords []string `json:"keywords"`
	Start    int      `json:"start"`
	End      int64    `json:"end"`
	Score    float64  `json:"score"`
	Final    bool     `json:"final"`
}

type fuzzReply struct {
	Topics []fuzzTopic `json:"topics"`
}

// FuzzDecodeRoundTrip encodes a reply of fuzzed values with encoding/json,
// wraps it the way models answer (bare, in a code fence, after prose) and
// checks that Decode gives back exactly the reply.
func FuzzDecodeRoundTrip(f *testing.F) {
	wraps := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return "```json\n" + s + "\n```" },
		func(s string) string { return "Here are the topics:\n" + s + "\nLet me know if you need more." },
		func(s string) string {
			return "주제는 다음과 같습니다.\n```\n" + s + "\n```\n감사합니다."
		},
	}
	f.Fuzz(func(t *testing.T, title, summary, keyword string, start int, end int64, score float64, final bool, wrap uint8) {
		in := fuzzReply{Topics: []fuzzTopic{
			{Title: title, Summary: summary, Keywords: []string{keyword, "회의"}, Start: start, End: end, Score: score, Final: final},
			{Title: "second", Start: start + 1},
		}}
		raw, err := json.Marshal(in)
		if err != nil {
			return // NaN or Inf
		}
		var want fuzzReply
		if err := json.Unmarshal(raw, &want); err != nil { // invalid UTF-8 becomes U+FFFD
			t.Fatal(err)
		}
		text := wraps[int(wrap)%len(wraps)](string(raw))
		var got fuzzReply
		if err := Decode(text, &got); err != nil {
			t.Fatalf("Decode(%q): %v", text, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q)\n got %+v\nwant %+v", text, got, want)
		}
	})
}
