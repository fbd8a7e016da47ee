package prdoc

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/mithub/mithub/pkg/textutil"
)

// Words people name a stretch of meeting with. People title a discussion
// with some of the words spoken in it ("prototype", "budget", "remote
// control") and not with others that are as frequent there ("please",
// "let", "only", "new"). HeadingWords holds, for each term, how much more
// often than the average term it is in the annotated name of a topic whose
// turns repeat it, learned from QMSum train (`make train-headings`); the
// headline rule weighs a candidate phrase's words by it.

// HeadingWords is the learned weight of terms as heading words.
type HeadingWords struct {
	// Source names the data the weights were learned from.
	Source string `json:"source"`
	// Topics is how many annotated topics were read, Pairs how many
	// (topic, term) pairs had the term at least MinTF times in the
	// topic's turns, and Prior the share of those pairs whose term is in
	// the topic's name.
	Topics int     `json:"topics"`
	Pairs  int     `json:"pairs"`
	Prior  float64 `json:"prior"`
	// MinTF, Alpha and MinSeen are the learning settings: a term is seen
	// in a topic when its turns have it MinTF times; its share is
	// smoothed towards Prior with Alpha pseudo-topics; a term seen in
	// fewer than MinSeen topics gets no weight of its own.
	MinTF   int     `json:"min_tf"`
	Alpha   float64 `json:"alpha"`
	MinSeen int     `json:"min_seen"`
	// Weights maps a term (textutil term, plural folded) to its smoothed
	// share of named topics over Prior; a term not listed weighs 1.
	Weights map[string]float64 `json:"weights"`
}

// Weight is the term's weight as a heading word: 1 for a term the
// training data says nothing about (a Korean term, a rare one).
func (h *HeadingWords) Weight(term string) float64 {
	if h == nil {
		return 1
	}
	if w, ok := h.Weights[textutil.FoldPlural(term)]; ok {
		return w
	}
	return 1
}

// How the headline rule uses the weights, chosen by two-fold cross-
// validation on QMSum train (weights learned on one half, headings scored
// on the other with mithub-lab eval-pr, "titles naming their topic"):
const (
	// headingWeightPower and headingWeightCap shape a term's factor in a
	// phrase's score, min(weight, cap)^power: damped and capped, so that
	// the subject of most meetings in the training data ("remote
	// control") does not title every item of a meeting.
	headingWeightPower = 0.5
	headingWeightCap   = 8
	// headingEdgeMin is the weight a heading's first and last words
	// need, so "Please let" or "Only useful" is passed over for a phrase
	// whose ends are words people title with; an item with no such
	// phrase takes the best phrase without it.
	headingEdgeMin = 1.0
)

// factor is the term's factor in a heading phrase's score.
func (h *HeadingWords) factor(term string) float64 {
	if h == nil {
		return 1
	}
	return math.Pow(min(headingWeightCap, h.Weight(term)), headingWeightPower)
}

// HeadingExample is a stretch of meeting and the name people gave it.
type HeadingExample struct {
	Name  string
	Turns []Turn
}

// LearnHeadingWords counts, over the examples, how often a term repeated
// in a stretch (minTF times) is in its name, and returns each term's
// share smoothed towards the average share with alpha pseudo-examples,
// relative to the average, for terms seen in at least minSeen examples.
// The result depends on the examples alone.
func LearnHeadingWords(examples []HeadingExample, minTF int, alpha float64, minSeen int, source string) HeadingWords {
	seen, named := map[string]int{}, map[string]int{}
	pairs, hits := 0, 0
	for _, ex := range examples {
		name := map[string]bool{}
		for _, w := range textutil.Terms(nil, ex.Name) {
			name[textutil.FoldPlural(w)] = true
		}
		tf := map[string]int{}
		for _, t := range ex.Turns {
			for _, w := range textutil.Terms(nil, markupRE.ReplaceAllString(t.Text, " ")) {
				tf[textutil.FoldPlural(w)]++
			}
		}
		for w, n := range tf {
			if n < minTF {
				continue
			}
			seen[w]++
			pairs++
			if name[w] {
				named[w]++
				hits++
			}
		}
	}
	h := HeadingWords{Source: source, Topics: len(examples), Pairs: pairs, MinTF: minTF, Alpha: alpha, MinSeen: minSeen, Weights: map[string]float64{}}
	if pairs == 0 || hits == 0 {
		return h
	}
	h.Prior = round4(float64(hits) / float64(pairs))
	terms := make([]string, 0, len(seen))
	for w := range seen {
		terms = append(terms, w)
	}
	slices.Sort(terms)
	for _, w := range terms {
		if seen[w] < minSeen {
			continue
		}
		p := (float64(named[w]) + alpha*h.Prior) / (float64(seen[w]) + alpha)
		h.Weights[w] = round4(p / h.Prior)
	}
	return h
}

func round4(x float64) float64 {
	if x == 0 {
		return 0
	}
	scale := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*scale) / scale
}

//go:embed headingwords.json
var headingWordsJSON []byte

// defaultHeadingWords is the embedded table, read once.
var defaultHeadingWords = func() *HeadingWords {
	h, err := ParseHeadingWords(headingWordsJSON)
	if err != nil {
		panic(err) // the embedded file is checked by its test
	}
	return &h
}()

// ParseHeadingWords reads a table written by LearnHeadingWords.
func ParseHeadingWords(data []byte) (HeadingWords, error) {
	var h HeadingWords
	if err := json.Unmarshal(data, &h); err != nil {
		return h, fmt.Errorf("heading words: %w", err)
	}
	if h.Prior <= 0 || h.Prior >= 1 || len(h.Weights) == 0 {
		return h, fmt.Errorf("heading words: prior %v with %d weights", h.Prior, len(h.Weights))
	}
	for w, x := range h.Weights {
		if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return h, fmt.Errorf("heading words: weight %v for %q", x, w)
		}
	}
	return h, nil
}
