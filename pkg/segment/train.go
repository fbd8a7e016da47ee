package segment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/segeval"
)

// Training parameters of TrainBoundaryModel.
const (
	// trainL2 is the ridge penalty on the standardised weights.
	trainL2 = 1.0
	// trainIterations of Newton's method; the loss is convex and a few
	// dozen features converge in far fewer.
	trainIterations = 25
	// positiveRadius: gaps this many turns or fewer from an annotated
	// boundary are positives, so the model learns "a topic starts about
	// here"; annotators disagree by a turn or two.
	positiveRadius = 3
)

// Decoder grids searched on the training meetings.
var (
	thresholdGrid = []float64{0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97}
	smoothGrid    = []int{0, 1, 2, 4, 8}
	strongGrid    = []float64{1, 0.97, 0.95, 0.9, 0.85, 0.8}
	minTurnsGrid  = []int{10, 15, 20, 25, 30, 40, 50, 60, 80}
	// minWordsGrid and topicWordsGrid are searched for the whole-meeting
	// decoder, with the live decoder's threshold: the shortest topic and
	// the prior mean topic length, in words spoken.
	minWordsGrid   = []int{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1500, 2000}
	topicWordsGrid = []int{300, 400, 500, 600, 800, 1000, 1200, 1500, 1800, 2200, 2600, 3000, 3500, 4000, 5000}
)

// MeetingInfo is one meeting prepared for training: its gap features and
// annotated topic labels per turn.
type MeetingInfo struct {
	Name   string
	feats  [][]float64
	labels []int
	at     []int // where each turn starts in words spoken (wordStarts)
}

// PrepareMeeting computes the features of every gap of a QMSum meeting
// with the text and speakers the replay sends (qmsum.Utterances); turns
// without text keep their index with empty text.
func PrepareMeeting(m *qmsum.Meeting) MeetingInfo {
	texts := make([]string, len(m.Turns))
	speakers := make([]string, len(m.Turns))
	for _, u := range qmsum.Utterances(m, "m") {
		var i int
		if _, err := fmt.Sscanf(u.SegmentID, "m-%d", &i); err == nil && i < len(texts) {
			texts[i], speakers[i] = u.Text, u.SpeakerID
		}
	}
	turns := make([]meetingctx.Turn, len(texts))
	for i := range turns {
		turns[i] = meetingctx.Turn{Seq: i, SpeakerID: speakers[i], Text: texts[i]}
	}
	infos := (&Segmenter{analyse: analyse}).newWindow(nil, turns).infos()
	return MeetingInfo{Name: m.Name, feats: gapFeatures(infos), labels: segeval.ReferenceLabels(m), at: wordStarts(infos)}
}

// TrainBoundaryModel fits the boundary model to prepared meetings
// (ordered by name, so the result does not depend on the input's order):
// standardisation from the data, a class-balanced, ridge-penalised
// logistic regression by Newton's method, then the decoder's threshold
// and minimum topic length by a grid search for the lowest mean Pk with a
// topic count within 0.65-1.5× the annotated one. The result is
// deterministic.
func TrainBoundaryModel(meetings []MeetingInfo) (*BoundaryModel, error) {
	ms := slices.Clone(meetings)
	slices.SortFunc(ms, func(a, b MeetingInfo) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	nf := len(featureNames)
	var xs [][]float64
	var ys []float64
	for _, m := range ms {
		bounds := make([]bool, len(m.labels))
		for i := 1; i < len(m.labels); i++ {
			if m.labels[i] != m.labels[i-1] {
				for j := max(1, i-positiveRadius); j <= min(len(m.labels)-1, i+positiveRadius); j++ {
					bounds[j] = true
				}
			}
		}
		for i, x := range m.feats {
			if x != nil {
				xs = append(xs, x)
				ys = append(ys, b2f(bounds[i]))
			}
		}
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("train boundary model: no gaps")
	}
	pos := 0.0
	for _, y := range ys {
		pos += y
	}
	if pos == 0 || pos == float64(len(ys)) {
		return nil, fmt.Errorf("train boundary model: %v positives of %d gaps", pos, len(ys))
	}
	model := &BoundaryModel{Features: slices.Clone(featureNames), Mean: make([]float64, nf), Scale: make([]float64, nf), Weights: make([]float64, nf)}
	for j := range nf {
		s := 0.0
		for _, x := range xs {
			s += x[j]
		}
		mean := s / float64(len(xs))
		v := 0.0
		for _, x := range xs {
			v += (x[j] - mean) * (x[j] - mean)
		}
		sd := math.Sqrt(v / float64(len(xs)))
		if sd < 1e-9 {
			sd = 1 // a constant feature: its weight stays 0 under the ridge
		}
		model.Mean[j], model.Scale[j] = round6(mean), round6(sd)
	}
	// Class weights: positives and negatives weigh the same in total.
	wPos, wNeg := float64(len(ys))/(2*pos), float64(len(ys))/(2*(float64(len(ys))-pos))
	z := make([]float64, nf+1) // standardised features and the bias
	theta := make([]float64, nf+1)
	for range trainIterations {
		grad := make([]float64, nf+1)
		hess := make([][]float64, nf+1)
		for k := range hess {
			hess[k] = make([]float64, nf+1)
		}
		for r, x := range xs {
			for j := range nf {
				z[j] = (x[j] - model.Mean[j]) / model.Scale[j]
			}
			z[nf] = 1
			a := 0.0
			for j, t := range theta {
				a += t * z[j]
			}
			p := 1 / (1 + math.Exp(-a))
			w := wNeg
			if ys[r] == 1 {
				w = wPos
			}
			g, h := w*(p-ys[r]), w*p*(1-p)
			for j := range z {
				grad[j] += g * z[j]
				for k := j; k < len(z); k++ {
					hess[j][k] += h * z[j] * z[k]
				}
			}
		}
		for j := range nf {
			grad[j] += trainL2 * theta[j]
			hess[j][j] += trainL2
		}
		for j := range hess {
			for k := 0; k < j; k++ {
				hess[j][k] = hess[k][j]
			}
		}
		step, err := solve(hess, grad)
		if err != nil {
			return nil, fmt.Errorf("train boundary model: %w", err)
		}
		for j := range theta {
			theta[j] -= step[j]
		}
	}
	for j := range nf {
		model.Weights[j] = round6(theta[j])
	}
	model.Bias = round6(theta[nf])
	model.Threshold, model.MinTurns, model.Smooth = tuneDecoder(model, ms)
	model.Strong = tuneStrong(model, ms)
	model.MinWords, model.TopicWords = tuneMeetingPrior(model, ms)
	return model, nil
}

// tuneDecoder picks the threshold and minimum topic length with the lowest
// mean Pk over meetings among those whose topic count is within 0.65-1.5×
// the annotated count (or the closest count when none is).
func tuneDecoder(model *BoundaryModel, ms []MeetingInfo) (float64, int, int) {
	probs := make([][]float64, len(ms))
	for i, m := range ms {
		probs[i] = model.rawProbs(m.feats)
	}
	bestT, bestM, bestS, best := thresholdGrid[0], minTurnsGrid[0], 0, math.Inf(1)
	for _, sm := range smoothGrid {
		sp := make([][]float64, len(ms))
		for i := range ms {
			sp[i] = smooth(probs[i], sm)
		}
		for _, th := range thresholdGrid {
			for _, mt := range minTurnsGrid {
				cost := decodeCost(ms, func(i, n int) []int { return decode(sp[i], 1, n, 0, n, th, mt, -1, nil) })
				if cost < best {
					bestT, bestM, bestS, best = th, mt, sm, cost
				}
			}
		}
	}
	return bestT, bestM, bestS
}

// tuneStrong picks, with the other decoder parameters fixed, the
// probability from which a gap's own evidence is enough (1: never), by
// the same criterion as tuneDecoder.
func tuneStrong(model *BoundaryModel, ms []MeetingInfo) float64 {
	raw := make([][]float64, len(ms))
	sm := make([][]float64, len(ms))
	for i, m := range ms {
		raw[i] = model.rawProbs(m.feats)
		sm[i] = smooth(raw[i], model.Smooth)
	}
	bestS, best := strongGrid[0], math.Inf(1)
	for _, st := range strongGrid {
		cost := decodeCost(ms, func(i, n int) []int {
			return decode(strong(raw[i], sm[i], st), 1, n, 0, n, model.Threshold, model.MinTurns, -1, nil)
		})
		if cost < best {
			bestS, best = st, cost
		}
	}
	return bestS
}

// tuneMeetingPrior picks the whole-meeting decoder's shortest topic and
// prior mean topic length, in words spoken, with the lowest mean Pk, its
// count within 0.65-1.5×.
func tuneMeetingPrior(model *BoundaryModel, ms []MeetingInfo) (minWords, topicWords int) {
	probs := make([][]float64, len(ms))
	for i, m := range ms {
		probs[i] = model.probs(m.feats)
	}
	best := math.Inf(1)
	for _, mw := range minWordsGrid {
		for _, tw := range topicWordsGrid {
			cost := decodeCost(ms, func(i, n int) []int {
				at := ms[i].at
				return decode(probs[i], 1, n, 0, n, model.Threshold, mw, meetingLimit(at[n], tw), at)
			})
			if cost < best {
				minWords, topicWords, best = mw, tw, cost
			}
		}
	}
	return minWords, topicWords
}

// decodeCost is the mean Pk over ms of the topic starts decoded by starts
// (given a meeting's index and turn count), plus a penalty when the
// topic count is outside 0.65-1.5× the annotated one.
func decodeCost(ms []MeetingInfo, starts func(i, n int) []int) float64 {
	pk, ref, hyp := 0.0, 0, 0
	for i, m := range ms {
		n := len(m.labels)
		hl := startsToLabels(n, starts(i, n))
		pk += segeval.Pk(m.labels, hl, segeval.DefaultK(m.labels))
		ref += segeval.Segments(m.labels)
		hyp += segeval.Segments(hl)
	}
	pk /= float64(len(ms))
	cost := pk
	if ratio := float64(hyp) / float64(ref); ratio < 0.65 || ratio > 1.5 {
		cost += 1 + math.Abs(math.Log(ratio))
	}
	return cost
}

// startsToLabels labels n turns from ascending topic starts.
func startsToLabels(n int, starts []int) []int {
	labels := make([]int, n)
	k := 0
	for i := range labels {
		for k < len(starts) && starts[k] <= i {
			k++
		}
		labels[i] = k
	}
	return labels
}

// solve solves a·x = b by Gaussian elimination with partial pivoting.
func solve(a [][]float64, b []float64) ([]float64, error) {
	n := len(b)
	m := make([][]float64, n)
	for i := range m {
		m[i] = append(slices.Clone(a[i]), b[i])
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if math.Abs(m[p][c]) < 1e-12 {
			return nil, fmt.Errorf("singular system")
		}
		m[c], m[p] = m[p], m[c]
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k <= n; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := m[r][n]
		for k := r + 1; k < n; k++ {
			s -= m[r][k] * x[k]
		}
		x[r] = s / m[r][r]
	}
	return x, nil
}

// round6 rounds to six significant digits, so the model file is short and
// stable across platforms' last-bit differences.
func round6(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return v
}

// MarshalIndent writes the model as indented JSON with a trailing newline;
// the same model always gives the same bytes.
func (m *BoundaryModel) MarshalIndent() ([]byte, error) {
	type plain BoundaryModel
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode((*plain)(m)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
