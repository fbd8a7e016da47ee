package textutil_test

import (
	"testing"

	"github.com/mithub/mithub/pkg/textutil"
)

func TestBM25(t *testing.T) {
	base := textutil.BM25(2, 3, 10, 20, 20)
	tests := []struct {
		name string
		got  float64
		cmp  func(a, b float64) bool
	}{
		{"absent term weighs nothing", textutil.BM25(0, 3, 10, 20, 20), func(a, _ float64) bool { return a == 0 }},
		{"more occurrences weigh more", textutil.BM25(4, 3, 10, 20, 20), func(a, b float64) bool { return a > b }},
		{"rarer terms weigh more", textutil.BM25(2, 1, 10, 20, 20), func(a, b float64) bool { return a > b }},
		{"longer documents weigh less", textutil.BM25(2, 3, 10, 60, 20), func(a, b float64) bool { return a < b }},
	}
	for _, tt := range tests {
		if !tt.cmp(tt.got, base) {
			t.Errorf("%s: %v against %v", tt.name, tt.got, base)
		}
	}
}
