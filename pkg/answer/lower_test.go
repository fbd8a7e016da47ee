package answer

import (
	"strings"
	"testing"
)

// appendLower is strings.ToLower into a buffer, for any input: ASCII,
// Hangul, other cased scripts and invalid UTF-8.
func FuzzAppendLower(f *testing.F) {
	for _, s := range []string{"", "Battery BUDGET", "배터리 예산은 Kim이 맡아", "ΣΊΣΥΦΟΣ Ünïcode İstanbul", "bad \xff\xfe UTF-8 \xc3", "ǅ ǈ ß ẞ"} {
		f.Add(s)
	}
	var buf []byte
	f.Fuzz(func(t *testing.T, s string) {
		buf = appendLower(buf[:0], s)
		if got, want := string(buf), strings.ToLower(s); got != want {
			t.Fatalf("appendLower(%q) = %q, strings.ToLower gives %q", s, got, want)
		}
	})
}
