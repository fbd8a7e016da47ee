package answertrain

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/qmsum"
)

// Fit learns a positive weight for the feature that predicts the label
// and a negative one for the feature that predicts its absence.
func TestFitLearnsDirection(t *testing.T) {
	var q Query
	for i := range 40 {
		var s answer.Sentence
		y := float64(i % 2)
		s.F[answer.FCover] = y
		s.F[answer.FShort] = 1 - y
		q.Cands = append(q.Cands, s)
		q.Labels = append(q.Labels, y)
	}
	w, _ := Fit([]Query{q}, 500)
	if w[answer.FCover] <= 0 || w[answer.FShort] >= 0 {
		t.Fatalf("weights %v: cover should be positive, short negative", w)
	}
}

// Training twice on the same meetings writes the same bytes; the model
// parses as the answerer reads it, and its answers beat ranking the
// sentences by nothing (all scores equal).
func TestTrainDeterministic(t *testing.T) {
	dir, err := qmsum.DataDir()
	if err != nil {
		t.Fatal(err)
	}
	var outs [2][]byte
	var qs []Query
	var m answer.AnswerModel
	for i := range outs {
		qs, err = Load(filepath.Join(dir, "train"), Options{Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(qs) == 0 {
			t.Fatal("no queries")
		}
		m = Train(qs, Options{Steps: 200})
		if outs[i], err = Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatalf("two runs differ:\n%s\n%s", outs[0], outs[1])
	}
	if _, err := answer.ParseAnswerModel(outs[0]); err != nil {
		t.Fatalf("trained model does not parse: %v", err)
	}
	flat := m
	flat.Weights = make([]float64, answer.NumFeatures)
	if got, base := Evaluate(qs, m, 40, 90), Evaluate(qs, flat, 40, 90); got.R1 <= base.R1 {
		t.Errorf("trained R-1 %.2f not above unranked %.2f", got.R1, base.R1)
	}
}
