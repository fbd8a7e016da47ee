package turntrain

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/services/mithubctl/internal/modelfile"
)

func TestEvaluateRanks(t *testing.T) {
	f := func(bm, emb float64) [meetingctx.TurnFeatureCount]float64 {
		return [meetingctx.TurnFeatureCount]float64{bm, 0, emb}
	}
	q := Query{
		Features: [][meetingctx.TurnFeatureCount]float64{f(1, 0), f(0.5, 0.5), f(0, 1), f(0.9, 0.9)},
		Reach:    []bool{true, true, true, false},
		Relevant: []bool{false, true, false, true},
	}
	// BM25 alone: turn 0 then the relevant turn 1; turn 3 is not reached.
	if got := Evaluate([]Query{q}, [meetingctx.TurnFeatureCount]float64{1}); got.MRR != 0.5 || got.Recall10 != 1 {
		t.Errorf("BM25 alone: %+v", got)
	}
	// Both legs: turn 1 ties turns 0 and 2 at 1.0 and ranks after the
	// earlier turn 0.
	if got := Evaluate([]Query{q}, [meetingctx.TurnFeatureCount]float64{1, 0, 1}); got.MRR != 0.5 {
		t.Errorf("both legs: %+v", got)
	}
	q.Relevant = []bool{false, false, false, true}
	if got := Evaluate([]Query{q}, [meetingctx.TurnFeatureCount]float64{1}); got.MRR != 0 || got.Recall10 != 0 {
		t.Errorf("unreached relevant turn counted: %+v", got)
	}
}

// Training twice on the same meetings writes the same bytes, and the
// learned weights do at least as well on them as BM25 alone.
func TestTrainDeterministic(t *testing.T) {
	dir := qmsumtest.Dir(t)
	ctx := context.Background()
	var outs [2][]byte
	var qs []Query
	var err error
	for i := range outs {
		var st Stats
		qs, st, err = Load(ctx, filepath.Join(dir, "train"), Options{Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(qs) == 0 {
			t.Fatal("no queries")
		}
		w := Train(qs, 2, nil)
		if outs[i], err = modelfile.Marshal(meetingctx.TurnWeights{Window: st.Window, QueryStop: st.QueryStop}.WithVector(w)); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatalf("two runs differ:\n%s\n%s", outs[0], outs[1])
	}
	w, err := meetingctx.ParseTurnWeights(outs[0])
	if err != nil {
		t.Fatal(err)
	}
	got, bm := Evaluate(qs, w.Vector()), Evaluate(qs, [meetingctx.TurnFeatureCount]float64{1})
	if objective(got) < objective(bm) {
		t.Errorf("trained %+v below BM25 %+v", got, bm)
	}
}
