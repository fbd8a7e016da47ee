package lenient

import (
	"encoding/json"
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
