package textutil

import (
	"slices"
	"testing"
)

// Every loanword's English word is a term of its own, as Terms gives it
// for the English word, and every spelling is a Hangul word no particle
// rule cuts into another loanword.
func TestLoanwordsAreTermsOfTheirEnglishWord(t *testing.T) {
	if len(loanwords) < 100 {
		t.Fatalf("%d loanwords", len(loanwords))
	}
	for ko, en := range loanwords {
		if got := Terms(nil, en); !slices.Equal(got, []string{en}) {
			t.Errorf("%s → %q: Terms(%q) = %q", ko, en, en, got)
		}
		if !isHangulWord(ko) {
			t.Errorf("%q is no Hangul word", ko)
		}
		if got := Terms(nil, ko+"를"); !slices.Equal(got, []string{en}) {
			t.Errorf("Terms(%q) = %q, want %q", ko+"를", got, en)
		}
		if !slices.Contains(spellings[en], ko) {
			t.Errorf("spellings of %q = %q, lack %q", en, spellings[en], ko)
		}
	}
}
