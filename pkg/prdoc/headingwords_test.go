package prdoc

import (
	"reflect"
	"strings"
	"testing"
)

// A word repeated in many stretches and in their names weighs more than
// the average word, one repeated as often and never in a name less; a
// word seen in too few stretches gets no weight; plurals count with their
// singular; the same examples give the same table.
func TestLearnHeadingWords(t *testing.T) {
	var examples []HeadingExample
	for i := range 6 {
		examples = append(examples, HeadingExample{
			Name: "Budget review",
			Turns: []Turn{
				{Text: "Please look at the budget, the budgets are late."},
				{Text: "Please, the budget again."},
			},
		})
		if i < 2 {
			examples[i].Turns = append(examples[i].Turns, Turn{Text: "The prototype, yes the prototype."})
		}
	}
	h := LearnHeadingWords(examples, 2, 2, 3, "test")
	if h.Topics != 6 || h.Source != "test" || h.MinTF != 2 || h.MinSeen != 3 {
		t.Fatalf("settings %+v", h)
	}
	// Pairs: budget and please in all six, prototype in two; named:
	// budget six times.
	if h.Pairs != 14 || h.Prior != round4(6.0/14) {
		t.Fatalf("pairs %d prior %v, want 14 and %v", h.Pairs, h.Prior, round4(6.0/14))
	}
	if w := h.Weight("budgets"); w <= 1 {
		t.Errorf("budget weighs %v, want > 1", w)
	}
	if w := h.Weight("please"); w >= 1 {
		t.Errorf("please weighs %v, want < 1", w)
	}
	if _, ok := h.Weights["prototype"]; ok {
		t.Errorf("prototype, seen in 2 < 3 stretches, has a weight")
	}
	if w := h.Weight("prototype"); w != 1 {
		t.Errorf("an unlisted word weighs %v, want 1", w)
	}
	if again := LearnHeadingWords(examples, 2, 2, 3, "test"); !reflect.DeepEqual(again, h) {
		t.Errorf("a second run differs: %+v", again)
	}
}

// The embedded table is read and holds the words it was learned for;
// broken tables are refused.
func TestHeadingWordsTable(t *testing.T) {
	if defaultHeadingWords.Prior <= 0 || len(defaultHeadingWords.Weights) < 100 {
		t.Fatalf("embedded table: prior %v, %d weights", defaultHeadingWords.Prior, len(defaultHeadingWords.Weights))
	}
	var nilTable *HeadingWords
	if nilTable.Weight("budget") != 1 || nilTable.factor("budget") != 1 {
		t.Errorf("a nil table does not weigh every word 1")
	}
	for _, bad := range []string{`{`, `{"prior":0,"weights":{"a":1}}`, `{"prior":0.1,"weights":{}}`, `{"prior":0.1,"weights":{"a":-1}}`} {
		if _, err := ParseHeadingWords([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "heading words") {
			t.Errorf("ParseHeadingWords(%s) = %v, want an error", bad, err)
		}
	}
}

// An item's key terms rank a word people name topics with above one as
// frequent that they do not, leave out words that make no heading
// ("about"), and rank every word alike without the learned weights.
func TestKeyTermsPreferHeadingWords(t *testing.T) {
	words := &HeadingWords{Weights: map[string]float64{"prototype": 6, "wood": 0.2}}
	tf := map[string]int{"prototype": 3, "wood": 3, "about": 5}
	df := map[string]int{"prototype": 1, "wood": 1, "about": 1}
	var it AgendaItem
	rankKeyTerms(&it, tf, df, 2, 1, words)
	if !reflect.DeepEqual(it.Keywords, []string{"prototype"}) {
		t.Errorf("with heading words: %q, want [prototype]", it.Keywords)
	}
	it = AgendaItem{}
	rankKeyTerms(&it, tf, df, 2, 3, nil)
	if !reflect.DeepEqual(it.Keywords, []string{"prototype", "wood"}) {
		t.Errorf("plain: %q, want [prototype wood] (alphabetical on a tie, no stop word)", it.Keywords)
	}
	words.Weights["wood"] = 7
	it = AgendaItem{}
	rankKeyTerms(&it, tf, df, 2, 1, words)
	if !reflect.DeepEqual(it.Keywords, []string{"wood"}) {
		t.Errorf("wood weighs more: %q, want [wood]", it.Keywords)
	}
}
