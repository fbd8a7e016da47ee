package local

import "github.com/mithub/mithub/pkg/meetingctx"

// msPerWord estimates speaking time for turns without times (150 words
// per minute).
const msPerWord = 400

// analysis is what the segmenter knows about one turn.
type analysis struct {
	words  []word
	bag    bag     // empty for fillers
	nwords int     // content words
	cue    float64 // cue phrase strength at the turn's start
}

func analyse(text string) analysis {
	a := analysis{words: tokenize(text)}
	a.bag = featureBag(a.words)
	for _, w := range a.words {
		if w.content() {
			a.nwords++
		}
	}
	a.cue = cueScore(a.words)
	return a
}

// window is the previous topic's last turns followed by the chunk.
type window struct {
	turns   []meetingctx.Turn
	first   int // index of the chunk's first turn
	an      []analysis
	bags    []bag
	nwords  []int
	content []int   // indices of the turns with content, ascending
	start   []int64 // start time per turn, ms (estimated without times)
	timed   bool    // the turns carry times
	// msPerTurn converts turn counts into time for an earlier turn
	// outside the window.
	msPerTurn float64
}

func (s *Segmenter) newWindow(in meetingctx.SegmentInput) *window {
	var prev []meetingctx.Turn
	first := in.Turns[0].Seq
	for _, t := range in.PreviousTurns {
		if t.Seq < first {
			prev = append(prev, t)
		}
	}
	w := &window{turns: append(prev, in.Turns...), first: len(prev)}
	n := len(w.turns)
	w.an, w.bags, w.nwords, w.start = make([]analysis, n), make([]bag, n), make([]int, n), make([]int64, n)
	for i, t := range w.turns {
		a := s.analyse(t.Text)
		w.an[i], w.bags[i], w.nwords[i] = a, a.bag, a.nwords
		if len(a.bag) > 0 {
			w.content = append(w.content, i)
		}
	}
	w.setTimes()
	return w
}

// setTimes takes the turns' start times when they have any, else
// estimates them from word counts.
func (w *window) setTimes() {
	for _, t := range w.turns {
		if t.EndMS > 0 {
			w.timed = true
			break
		}
	}
	var at int64
	for i, t := range w.turns {
		if w.timed {
			w.start[i] = t.StartMS
			continue
		}
		w.start[i] = at
		at += int64(max(len(w.an[i].words), 1)) * msPerWord
	}
	last := w.turns[len(w.turns)-1]
	end := at
	if w.timed {
		end = max(last.EndMS, last.StartMS)
	}
	w.msPerTurn = float64(end-w.start[0]) / float64(len(w.turns))
}

// topicStart returns when a topic started, on the window's clock: its
// StartMS when the turns are timed, otherwise estimated from its turn
// count.
func (w *window) topicStart(t *meetingctx.Topic) int64 {
	if w.timed && t.EndMS > 0 {
		return t.StartMS
	}
	return w.start[0] - int64(float64(w.turns[0].Seq-t.StartSeq)*w.msPerTurn)
}

// docs returns window turns [from, to) as analysed documents.
func (w *window) docs(from, to int) []doc {
	out := make([]doc, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, doc{text: w.turns[i].Text, words: w.an[i].words, bag: w.an[i].bag})
	}
	return out
}
