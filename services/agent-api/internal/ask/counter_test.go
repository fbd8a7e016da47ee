package ask

import (
	"fmt"
	"testing"

	"github.com/mithub/mithub/pkg/tokens"
)

// Memoised counts equal fresh ones, short texts are not kept, and the
// memo stays within its bound.
func TestMemoCounter(t *testing.T) {
	c, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	m := newMemoCounter(c)
	texts := []string{"short", "You are MitHub, an assistant taking part in a live meeting.", "- 김민수 (facilitator): 12 turns, 03:10 talk time, last spoke at 41:02"}
	for range 2 {
		for _, tx := range texts {
			if got, want := m.Count(tx), c.Count(tx); got != want {
				t.Fatalf("Count(%q) = %d, want %d", tx, got, want)
			}
		}
	}
	if m.counts.Contains(m.key("short")) || !m.counts.Contains(m.key(texts[1])) {
		t.Fatal("only texts of at least memoMinLen bytes are kept")
	}
	for i := range memoEntries + 100 {
		m.Count(fmt.Sprintf("topic line number %06d about the quarterly budget", i))
	}
	if n := m.counts.Len(); n > memoEntries {
		t.Fatalf("memo holds %d texts, bound %d", n, memoEntries)
	}
}
