package agendaeval

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/qmsum"
)

func TestScratchDecisions(t *testing.T) {
	files, err := qmsum.MeetingFiles(os.Getenv("SCRATCH_DIR"))
	if err != nil {
		t.Fatal(err)
	}
	model := prdoc.DefaultDecisionModel()
	var nq, withCand, hit int
	var spanFrac []float64
	for _, f := range files {
		m, err := qmsum.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		var qs []qmsum.SpecificQuery
		for _, q := range m.SpecificQueries {
			if IsDecisionQuery(q.Query) {
				qs = append(qs, q)
			}
		}
		if len(qs) == 0 {
			continue
		}
		in, err := BuildInput(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := prdoc.NewLocal().Extract(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		spoken := qmsum.SpokenTurns(m)
		cands := prdoc.DecisionCandidates(in.Turns)
		type rc struct {
			seq   int
			score float64
			text  string
		}
		var rs []rc
		for _, c := range cands {
			rs = append(rs, rc{c.Seq, model.Score(c.Features), c.Text})
		}
		slices.SortFunc(rs, func(a, b rc) int {
			if a.score > b.score {
				return -1
			}
			if a.score < b.score {
				return 1
			}
			return 0
		})
		var dseq []int
		for _, d := range doc.Decisions {
			dseq = append(dseq, d.Seq)
		}
		for _, q := range qs {
			nq++
			inSpan := func(seq int) bool {
				if seq >= len(spoken) {
					return false
				}
				for _, sp := range q.Spans {
					if sp.Contains(spoken[seq]) {
						return true
					}
				}
				return false
			}
			cov := 0
			for _, sp := range q.Spans {
				cov += sp.End - sp.Start + 1
			}
			spanFrac = append(spanFrac, float64(cov)/float64(len(m.Turns)))
			first := -1
			for k, r := range rs {
				if inSpan(r.seq) {
					first = k
					break
				}
			}
			h := cites(dseq, q.Spans, spoken)
			if first >= 0 {
				withCand++
			}
			if h {
				hit++
			}
			ex := ""
			if first >= 0 {
				ex = rs[first].text
			}
			fmt.Printf("%s hit=%v firstRank=%d/%d spanFrac=%.2f q=%q\n   best in span: %q\n", m.Name, h, first, len(rs), float64(cov)/float64(len(m.Turns)), q.Query, ex)
		}
	}
	fmt.Printf("queries %d, with a candidate in span %d, hit %d\n", nq, withCand, hit)
}
