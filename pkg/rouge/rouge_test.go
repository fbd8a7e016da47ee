package rouge

import (
	"math"
	"slices"
	"testing"
)

// Outputs of NLTK's PorterStemmer() (default mode), which rouge-score uses.
func TestStem(t *testing.T) {
	cases := map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "tie", "cats": "cat", "feed": "feed",
		"agreed": "agre", "plastered": "plaster", "motoring": "motor", "sing": "sing",
		"conflated": "conflat", "hopping": "hop", "falling": "fall", "hissing": "hiss",
		"filing": "file", "failing": "fail", "happy": "happi", "enjoy": "enjoy",
		"relational": "relat", "conditional": "condit", "rational": "ration",
		"meeting": "meet", "meetings": "meet", "dying": "die", "skies": "sky", "news": "news",
		"died": "die", "spied": "spi", "flies": "fli", "controlling": "control", "roll": "roll",
		"generalization": "gener", "effective": "effect", "adoption": "adopt",
		"discussion": "discuss", "discussed": "discuss", "remote": "remot", "recording": "record",
		"equipment": "equip", "proceed": "proceed", "university": "univers", "happiness": "happi",
		"hopefulness": "hope", "triplicate": "triplic", "analogi": "analog", "radically": "radic",
	}
	for in, want := range cases {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokens(t *testing.T) {
	got := Tokens("The Remote-Control's DESIGNS, {vocalsound} 회의 cost 12.5 euros")
	want := []string{"the", "remot", "control", "s", "design", "vocalsound", "cost", "12", "5", "euro"}
	if !slices.Equal(got, want) {
		t.Fatalf("Tokens = %q, want %q", got, want)
	}
	if got := Tokens("회의 — !!"); len(got) != 0 {
		t.Fatalf("Tokens of no a-z0-9 = %q, want none", got)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Hand-computed: reference "the cat was under the bed" (6 tokens),
// candidate "the cat was found under the bed" (7). Unigrams: 6 match,
// P 6/7, R 6/6, F 12/13. Bigrams: the cat, cat was, under the, the bed
// match (4 of 6 and of 5): P 4/6, R 4/5, F 8/11. LCS "the cat was under
// the bed" = 6: as ROUGE-1.
func TestCompareHandComputed(t *testing.T) {
	s := Compare("the cat was under the bed", "the cat was found under the bed")
	if !near(s.R1.F1, 12.0/13) || !near(s.R1.Precision, 6.0/7) || !near(s.R1.Recall, 1) {
		t.Errorf("R1 = %+v, want P 6/7 R 1 F 12/13", s.R1)
	}
	if !near(s.R2.F1, 8.0/11) || !near(s.R2.Precision, 4.0/6) || !near(s.R2.Recall, 4.0/5) {
		t.Errorf("R2 = %+v, want P 4/6 R 4/5 F 8/11", s.R2)
	}
	if !near(s.RL.F1, 12.0/13) {
		t.Errorf("RL = %+v, want F 12/13", s.RL)
	}
}

// Repeated n-grams are clipped; LCS differs from unigram overlap when the
// order differs; stemming makes "meetings" match "meeting".
func TestCompareClippingOrderStemming(t *testing.T) {
	// ref "a a b" vs cand "a a a a": unigram match min(4,2)=2, P 2/4, R 2/3,
	// F = 2*(1/2)(2/3)/(1/2+2/3) = 4/7.
	s := Compare("a a b", "a a a a")
	if !near(s.R1.F1, 4.0/7) {
		t.Errorf("clipped R1 F = %v, want 4/7", s.R1.F1)
	}
	// ref "x y z" vs cand "z y x": 3 unigrams match, no bigram, LCS 1:
	// RL P 1/3 R 1/3 F 1/3.
	s = Compare("x y z", "z y x")
	if !near(s.R1.F1, 1) || s.R2.F1 != 0 || !near(s.RL.F1, 1.0/3) {
		t.Errorf("reordered = %+v, want R1 1, R2 0, RL 1/3", s)
	}
	s = Compare("The meetings were recorded.", "meeting recording")
	// ref: the meet were record (4); cand: meet record (2): R1 P 1 R 1/2 F 2/3;
	// bigram "meet record" is not in ref ("meet were"): 0.
	if !near(s.R1.F1, 2.0/3) || s.R2.F1 != 0 || !near(s.RL.F1, 2.0/3) {
		t.Errorf("stemmed = %+v, want R1 2/3, R2 0, RL 2/3", s)
	}
	if s := Compare("", "anything"); s.R1.F1 != 0 || s.RL.F1 != 0 {
		t.Errorf("empty reference = %+v, want zeros", s)
	}
}
