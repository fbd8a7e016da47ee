package segment

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"
)

// The boundary model scores every gap between two turns with the
// probability that a new topic starts at the turn after it: a logistic
// regression over the features below, trained on the QMSum train split
// (TrainBoundaryModel, `make train`). Decoding keeps the most probable
// gaps above a threshold that are at least MinTurns turns apart and from
// the ends, so topics have a realistic length.
//
// None of the features reads the turns' times: QMSum has none, so a replay
// synthesises them, and a model trained on them would learn the replay's
// clock instead of the meeting.

// Cohesion windows, in turns: lexical similarity of the blocks of this many
// turns before and after a gap.
var cohesionWindows = [...]int{5, 10, 20, 40}

// featureNames name the model's inputs, in order; boundary.json carries
// them so a model file built for other features is refused.
var featureNames = []string{
	"depth5", "depth10", "depth20", "depth40", "dissim10", "dissim20", "dissim40", "peak20",
	"cue", "cue_near",
	"speaker_change", "new_speaker",
	"log_words", "log_words_prev", "log_words_next3",
	"question_prev", "question",
	"novelty", "backchannel", "speaker_shift20",
}

// BoundaryModel is a trained boundary model: standardisation, weights and
// the decoder's parameters.
type BoundaryModel struct {
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"`
	Scale    []float64 `json:"scale"`
	Weights  []float64 `json:"weights"`
	Bias     float64   `json:"bias"`
	// Threshold is the least probability of a boundary the decoder keeps.
	Threshold float64 `json:"threshold"`
	// MinTurns is the shortest topic the decoder makes, in turns.
	MinTurns int `json:"min_turns"`
	// MinWords and TopicWords decode a whole meeting at once
	// (Segmenter.SegmentMeeting), where topic length is measured in words
	// spoken, as time is, rather than in turns, whose length differs from
	// a committee's speeches to a design team's quick exchanges: every
	// topic is at least MinWords words long, and a meeting of w words
	// gets at most w/TopicWords topics (rounded).
	MinWords   int `json:"min_words"`
	TopicWords int `json:"topic_words"`
	// Smooth is the half-width, in gaps, of the moving average over the
	// probabilities before decoding: evidence for a topic change spreads
	// over a few turns.
	Smooth int `json:"smooth"`
	// Strong is the probability from which one gap's own evidence is
	// enough, without its neighbours' (a sharp change of subject with a
	// cue); 1 turns it off.
	Strong float64 `json:"strong"`
}

//go:embed model/boundary.json
var boundaryJSON []byte

// shippedModel parses the shipped model once, when the first Segmenter
// is made.
var shippedModel = sync.OnceValues(func() (*BoundaryModel, error) { return ParseBoundaryModel(boundaryJSON) })

// ParseBoundaryModel reads a model written by BoundaryModel.MarshalIndent and
// checks that it fits this build's features.
func ParseBoundaryModel(b []byte) (*BoundaryModel, error) {
	var m BoundaryModel
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("boundary model: %w", err)
	}
	if !slices.Equal(m.Features, featureNames) {
		return nil, fmt.Errorf("boundary model: features %v, this build computes %v", m.Features, featureNames)
	}
	n := len(featureNames)
	if len(m.Mean) != n || len(m.Scale) != n || len(m.Weights) != n {
		return nil, fmt.Errorf("boundary model: %d means, %d scales, %d weights for %d features", len(m.Mean), len(m.Scale), len(m.Weights), n)
	}
	if m.Threshold <= 0 || m.Threshold >= 1 || m.MinTurns < 1 || m.MinWords < 1 || m.TopicWords < 1 || m.Strong <= 0 || m.Strong > 1 {
		return nil, fmt.Errorf("boundary model: threshold %v, min_turns %d, min_words %d, topic_words %d, strong %v", m.Threshold, m.MinTurns, m.MinWords, m.TopicWords, m.Strong)
	}
	return &m, nil
}

// DefaultBoundaryModel returns a copy of the shipped model
// (model/boundary.json, built by `make train`).
func DefaultBoundaryModel() (BoundaryModel, error) {
	d, err := shippedModel()
	if err != nil {
		return BoundaryModel{}, err
	}
	m := *d
	m.Features = slices.Clone(m.Features)
	m.Mean, m.Scale, m.Weights = slices.Clone(m.Mean), slices.Clone(m.Scale), slices.Clone(m.Weights)
	return m, nil
}

// prob is the model's boundary probability for one feature vector.
func (m *BoundaryModel) prob(x []float64) float64 {
	z := m.Bias
	for j, v := range x {
		z += m.Weights[j] * (v - m.Mean[j]) / m.Scale[j]
	}
	return 1 / (1 + math.Exp(-z))
}

// turnInfo is what the features read from one turn.
type turnInfo struct {
	bag       bag
	nwords    int // content words
	allWords  int
	halfWords int // spoken length (see analysis)
	cue       float64
	question  bool
	speaker   string
}

// gapFeatures returns, for each turn i ≥ 1, the features of the gap before
// it (row 0 is nil).
func gapFeatures(ts []turnInfo) [][]float64 {
	n := len(ts)
	feats := make([][]float64, n)
	if n < 2 {
		return feats
	}
	bags := make([]bag, n)
	norms := make([]float64, n)
	for i, t := range ts {
		bags[i] = t.bag
		norms[i] = t.bag.norm()
	}
	vecs, nfeat := denseVecs(bags)
	left, right := newBlock(nfeat), newBlock(nfeat)
	content := func(lo, hi int, buf []int) []int {
		buf = buf[:0]
		for i := max(lo, 0); i < min(hi, n); i++ {
			if norms[i] > 0 {
				buf = append(buf, i)
			}
		}
		return buf
	}
	var lb, rb []int
	sims := make([][]float64, len(cohesionWindows))
	for k, win := range cohesionWindows {
		s := make([]float64, n)
		for i := 1; i < n; i++ {
			lb = content(i-win, i, lb)
			rb = content(i, i+win, rb)
			left.fill(vecs, norms, lb)
			right.fill(vecs, norms, rb)
			s[i] = left.cosine(right)
		}
		sims[k] = s
	}
	// Novelty: the share of the weight of the next 5 turns' features that
	// the previous 20 turns never used. lastSeen[id] is the last turn
	// before the gap that used feature id.
	lastSeen := make([]int, nfeat)
	for k := range lastSeen {
		lastSeen[k] = -1 << 30
	}
	for i := 1; i < n; i++ {
		row := make([]float64, 0, len(featureNames))
		for k := range cohesionWindows {
			row = append(row, depthAt(sims[k], i))
		}
		row = append(row, 1-sims[1][i], 1-sims[2][i], 1-sims[3][i])
		// peak20: how far the dissimilarity at 20 turns is below its
		// highest within 5 gaps either side (0 at a local peak).
		top := 0.0
		for j := max(1, i-5); j < min(n, i+6); j++ {
			top = max(top, 1-sims[2][j])
		}
		row = append(row, (1-sims[2][i])-top)
		t, p := ts[i], ts[i-1]
		near := p.cue
		if i+1 < n {
			near = max(near, ts[i+1].cue)
		}
		row = append(row, t.cue, near)
		newSpeaker := 1.0
		for j := max(0, i-10); j < i; j++ {
			if ts[j].speaker == t.speaker {
				newSpeaker = 0
				break
			}
		}
		row = append(row, b2f(t.speaker != p.speaker), newSpeaker)
		next3 := 0
		for j := i; j < min(n, i+3); j++ {
			next3 = max(next3, ts[j].allWords)
		}
		row = append(row, math.Log1p(float64(t.allWords)), math.Log1p(float64(p.allWords)), math.Log1p(float64(next3)))
		row = append(row, b2f(p.question), b2f(t.question))
		for _, e := range vecs[i-1] {
			lastSeen[e.id] = i - 1
		}
		var tot, novel float64
		for j := i; j < min(n, i+5); j++ {
			for _, e := range vecs[j] {
				tot += e.v
				if lastSeen[e.id] < i-20 {
					novel += e.v
				}
			}
		}
		nov := 0.0
		if tot > 0 {
			nov = novel / tot
		}
		row = append(row, nov, b2f(t.nwords == 0), speakerShift(ts, i, 20))
		feats[i] = row
	}
	return feats
}

// speakerShift is 1 − the cosine between who spoke how many words in the
// win turns before gap i and in the win turns after it: a topic often
// changes who talks.
func speakerShift(ts []turnInfo, i, win int) float64 {
	before, after := map[string]float64{}, map[string]float64{}
	for j := max(0, i-win); j < i; j++ {
		before[ts[j].speaker] += float64(ts[j].allWords)
	}
	for j := i; j < min(len(ts), i+win); j++ {
		after[ts[j].speaker] += float64(ts[j].allWords)
	}
	var dot, nb, na float64
	for sp, v := range before {
		nb += v * v
		dot += v * after[sp]
	}
	for _, v := range after {
		na += v * v
	}
	if nb == 0 || na == 0 {
		return 1
	}
	return 1 - dot/math.Sqrt(nb*na)
}

// depthAt is Hearst's depth of the similarity series s (gaps 1..len-1) at
// gap i: how far it drops from the nearest peaks on either side.
func depthAt(s []float64, i int) float64 {
	l := s[i]
	for j := i - 1; j >= 1 && s[j] >= l; j-- {
		l = s[j]
	}
	r := s[i]
	for j := i + 1; j < len(s) && s[j] >= r; j++ {
		r = s[j]
	}
	return l + r - 2*s[i]
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// probs scores every gap: probs[i] is the probability that a topic starts
// at turn i (probs[0] is 0), averaged over Smooth gaps either side, or the
// gap's own probability where that is at least Strong.
func (m *BoundaryModel) probs(feats [][]float64) []float64 {
	raw := m.rawProbs(feats)
	return strong(raw, smooth(raw, m.Smooth), m.Strong)
}

// strong returns sm with sm[i] raised to raw[i] where raw[i] ≥ th.
func strong(raw, sm []float64, th float64) []float64 {
	out := slices.Clone(sm)
	for i, p := range raw {
		if p >= th && p > out[i] {
			out[i] = p
		}
	}
	return out
}

func (m *BoundaryModel) rawProbs(feats [][]float64) []float64 {
	out := make([]float64, len(feats))
	for i, x := range feats {
		if x != nil {
			out[i] = m.prob(x)
		}
	}
	return out
}

// smooth averages p[1:] over h gaps either side, shrinking at the ends.
func smooth(p []float64, h int) []float64 {
	if h <= 0 || len(p) < 3 {
		return p
	}
	out := make([]float64, len(p))
	for i := 1; i < len(p); i++ {
		lo, hi := max(1, i-h), min(len(p), i+h+1)
		s := 0.0
		for _, v := range p[lo:hi] {
			s += v
		}
		out[i] = s / float64(hi-lo)
	}
	return out
}

// decode picks topic starts among turns [from, to) of probs: the most
// probable gaps above the threshold, each at least minLen from the ones
// kept, from lo (the start of the topic open before from) and from hi
// (the end of the turns, or how far a later start could still be), at
// most limit of them (no limit when negative). It returns them ascending.
// Lengths are in turns when at is nil, else at[i] is where turn i starts
// (at[len(probs)] where the last ends), in words spoken.
func decode(probs []float64, from, to, lo, hi int, threshold float64, minLen, limit int, at []int) []int {
	type cand struct {
		i int
		p float64
	}
	var cands []cand
	for i := max(from, 1); i < to; i++ {
		if probs[i] >= threshold {
			cands = append(cands, cand{i, probs[i]})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.p > b.p:
			return -1
		case a.p < b.p:
			return 1
		}
		return a.i - b.i
	})
	pos := func(i int) int { return i }
	if at != nil {
		pos = func(i int) int { return at[i] }
	}
	var starts []int
	for _, c := range cands {
		if limit >= 0 && len(starts) >= limit {
			break
		}
		p := pos(c.i)
		if p-pos(lo) < minLen || pos(hi)-p < minLen {
			continue
		}
		ok := true
		for _, s := range starts {
			if abs(p-pos(s)) < minLen {
				ok = false
				break
			}
		}
		if ok {
			starts = append(starts, c.i)
		}
	}
	slices.Sort(starts)
	return starts
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// meetingLimit is how many topic starts after the first a whole meeting of
// words words may have under the prior on topic length.
func meetingLimit(words, topicWords int) int {
	return max(0, int(math.Round(float64(words)/float64(topicWords)))-1)
}

// wordStarts is where each turn starts in words spoken (the last entry is
// where the last turn ends): a Hangul word counts half a word per
// syllable, so a meeting's length in words is its length in time whatever
// its language.
func wordStarts(ts []turnInfo) []int {
	at := make([]int, len(ts)+1)
	half := 0
	for i, t := range ts {
		half += t.halfWords
		at[i+1] = half / 2
	}
	return at
}
