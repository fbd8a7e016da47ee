package segment

import (
	"strings"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// analysis is what the segmenter knows about one turn's text.
type analysis struct {
	words  []word
	bag    bag     // empty for fillers
	nwords int     // content words
	cue    float64 // cue phrase strength at the turn's start
	// halfWords is how long the turn is spoken, in half words: two per
	// word, one per syllable of a Hangul word (a Korean word of two
	// syllables takes about as long as an English word; the replay timing
	// of qmsum.Utterances counts the same way).
	halfWords int
}

func analyse(text string) analysis {
	a := analysis{words: tokenize(text)}
	a.bag = featureBag(a.words)
	for _, w := range a.words {
		if w.content() {
			a.nwords++
		}
		if w.hangul {
			a.halfWords += utf8.RuneCountInString(w.surface)
		} else {
			a.halfWords += 2
		}
	}
	a.cue = cueScore(a.words)
	return a
}

// window is a run of consecutive turns with their analyses: for a chunk,
// the previous topic's last turns followed by the chunk.
type window struct {
	turns []meetingctx.Turn
	first int // index of the chunk's first turn
	an    []analysis
}

func (s *Segmenter) newWindow(prev, turns []meetingctx.Turn) *window {
	w := &window{turns: append(append([]meetingctx.Turn(nil), prev...), turns...), first: len(prev)}
	w.an = make([]analysis, len(w.turns))
	for i, t := range w.turns {
		w.an[i] = s.analyse(t.Text)
	}
	return w
}

// infos returns what the boundary features read from each turn. A turn's
// speaker is its SpeakerID, or its name when it has no id.
func (w *window) infos() []turnInfo {
	ts := make([]turnInfo, len(w.turns))
	for i, t := range w.turns {
		a := w.an[i]
		sp := t.SpeakerID
		if sp == "" {
			sp = t.SpeakerName
		}
		ts[i] = turnInfo{
			bag: a.bag, nwords: a.nwords, allWords: len(a.words), halfWords: a.halfWords, cue: a.cue,
			question: strings.ContainsAny(t.Text, "?？"), speaker: sp,
		}
	}
	return ts
}

// docs returns window turns [from, to) as analysed documents.
func (w *window) docs(from, to int) []doc {
	out := make([]doc, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, doc{text: w.turns[i].Text, words: w.an[i].words, bag: w.an[i].bag})
	}
	return out
}
