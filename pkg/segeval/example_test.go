package segeval_test

import (
	"fmt"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segeval"
)

func ExamplePk() {
	ref := []int{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}
	hyp := segeval.HypothesisLabels(10, []meetingctx.Topic{
		{StartSeq: 0, EndSeq: 5},
		{StartSeq: 6, EndSeq: 9},
	})
	k := segeval.DefaultK(ref)
	fmt.Printf("k=%d Pk=%.3f WindowDiff=%.3f\n", k, segeval.Pk(ref, hyp, k), segeval.WindowDiff(ref, hyp, k))
	// Output: k=3 Pk=0.286 WindowDiff=0.286
}
