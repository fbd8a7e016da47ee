package tokens_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/tokens"
)

// readLines returns the lines of a test data file without their newlines.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// testdata/corpus_counts.tsv holds js-tiktoken's counts of
// testdata/corpus.txt (scripts/tokens-corpus regenerates it); the fast
// counters give the same count on every line.
func TestParityWithJSTiktoken(t *testing.T) {
	texts := readLines(t, "testdata/corpus.txt")
	counts := readLines(t, "testdata/corpus_counts.tsv")
	if len(texts) != len(counts) {
		t.Fatalf("corpus.txt has %d lines, corpus_counts.tsv %d: regenerate with scripts/tokens-corpus", len(texts), len(counts))
	}
	if len(texts) < 400 {
		t.Fatalf("corpus.txt has %d lines, want at least 400", len(texts))
	}
	var counters []tokens.Counter
	for _, enc := range encodings {
		c, err := tokens.ForEncoding(enc)
		if err != nil {
			t.Fatal(err)
		}
		counters = append(counters, c)
	}
	var mismatched []string
	for i, line := range texts {
		var text string
		if err := json.Unmarshal([]byte(line), &text); err != nil {
			t.Fatalf("corpus.txt:%d: %v", i+1, err)
		}
		fields := strings.Split(counts[i], "\t")
		if len(fields) != len(counters) {
			t.Fatalf("corpus_counts.tsv:%d: %d fields, want %d", i+1, len(fields), len(counters))
		}
		for k, c := range counters {
			want, err := strconv.Atoi(fields[k])
			if err != nil {
				t.Fatalf("corpus_counts.tsv:%d: %v", i+1, err)
			}
			if got := c.Count(text); got != want {
				t.Errorf("corpus.txt:%d: %s count %d, js-tiktoken %d: %.60q", i+1, c.Encoding(), got, want, text)
				mismatched = append(mismatched, strconv.Itoa(i+1))
			}
		}
	}
	if len(mismatched) > 0 {
		t.Errorf("mismatched lines: %s", strings.Join(mismatched, ","))
	}
}
