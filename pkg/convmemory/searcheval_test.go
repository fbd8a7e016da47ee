package convmemory_test

import (
	"context"
	"os"
	"sort"
	"testing"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/pkg/textutil"
)

// evalQuery is a QMSum specific query with the turn seqs that answer it,
// in its meeting's conversation and in the conversation of all meetings.
type evalQuery struct {
	text        string
	conv        string
	relevant    map[int]bool
	longRelated map[int]bool
	meeting     int
}

// TestSearchRecallQMSum measures how often search's top 10 holds a turn
// that answers a QMSum validation query (a turn of its relevant spans):
// each meeting as its own conversation, and all meetings as one long
// conversation, beside plain BM25 over the same turns held in memory.
// It runs only with MITHUB_EVAL_SEARCH=1 (about a minute; make eval-memory
// runs it):
//
//	MITHUB_EVAL_SEARCH=1 go test ./pkg/convmemory -run TestSearchRecallQMSum -v
func TestSearchRecallQMSum(t *testing.T) {
	if os.Getenv("MITHUB_EVAL_SEARCH") == "" {
		t.Skip("set MITHUB_EVAL_SEARCH=1 to measure search recall on QMSum val")
	}
	ctx := context.Background()
	f := newFixture(t, convmemory.NewLocal())
	long, err := f.svc.StartChat(ctx, f.tenant.ID, "every validation meeting")
	if err != nil {
		t.Fatal(err)
	}
	var (
		queries   []evalQuery
		meetings  [][][]string // per meeting, the terms of each turn
		longDocs  [][]string
		longStart []int
	)
	for mi, file := range qmsumtest.Files(t, "val") {
		m, err := qmsum.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		c, err := f.svc.StartChat(ctx, f.tenant.ID, m.Name)
		if err != nil {
			t.Fatal(err)
		}
		seqOf := map[int]int{}
		var (
			docs  [][]string
			nodes []conversation.NewNode
		)
		longStart = append(longStart, len(longDocs))
		for _, i := range qmsum.SpokenTurns(m) {
			tr := m.Turns[i]
			seqOf[i] = len(docs)
			nodes = append(nodes, conversation.NewNode{Seq: len(docs), Text: convmemory.EncodeTurn(tr.Speaker, tr.Content),
				Tokens: f.count.Count(tr.Speaker + ": " + tr.Content)})
			docs = append(docs, textutil.Terms(textutil.Terms(nil, tr.Speaker), tr.Content))
		}
		// Stored in batches, as AddMessage stores one turn.
		if _, err := f.st.AppendTurns(ctx, f.tenant.ID, c.ID, nodes); err != nil {
			t.Fatal(err)
		}
		for i := range nodes {
			nodes[i].Seq += len(longDocs)
		}
		if _, err := f.st.AppendTurns(ctx, f.tenant.ID, long.ID, nodes); err != nil {
			t.Fatal(err)
		}
		longDocs = append(longDocs, docs...)
		meetings = append(meetings, docs)
		for _, q := range m.SpecificQueries {
			eq := evalQuery{text: q.Query, conv: c.ID, relevant: map[int]bool{}, longRelated: map[int]bool{}, meeting: mi}
			for _, sp := range q.Spans {
				for i := sp.Start; i <= sp.End; i++ {
					if seq, ok := seqOf[i]; ok {
						eq.relevant[seq] = true
						eq.longRelated[longStart[mi]+seq] = true
					}
				}
			}
			if len(eq.relevant) > 0 {
				queries = append(queries, eq)
			}
		}
	}
	var found [4]int
	for _, q := range queries {
		for j, conv := range []string{q.conv, long.ID} {
			rel := []map[int]bool{q.relevant, q.longRelated}[j]
			hits, err := f.svc.Search(ctx, f.tenant.ID, conv, q.text, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if h.Kind == "turn" && rel[h.Seq] {
					found[j]++
					break
				}
			}
			docs := [][][]string{meetings[q.meeting], longDocs}[j]
			for _, seq := range bm25Top(docs, textutil.Terms(nil, q.text), 10) {
				if rel[seq] {
					found[2+j]++
					break
				}
			}
		}
	}
	n := float64(len(queries))
	t.Logf("QMSum val, %d specific queries, %d turns; evidence turn in the top 10:", len(queries), len(longDocs))
	t.Logf("  per meeting:   search %.1f%%, in-memory BM25 %.1f%%", 100*float64(found[0])/n, 100*float64(found[2])/n)
	t.Logf("  one long chat: search %.1f%%, in-memory BM25 %.1f%%", 100*float64(found[1])/n, 100*float64(found[3])/n)
}

// bm25Top ranks docs by textutil.BM25 against the query terms, lengths
// in terms, and returns the indexes of the best k.
func bm25Top(docs [][]string, query []string, k int) []int {
	df := map[string]int{}
	total := 0
	tfs := make([]map[string]int, len(docs))
	for i, d := range docs {
		tfs[i] = map[string]int{}
		for _, w := range d {
			if tfs[i][w] == 0 {
				df[w]++
			}
			tfs[i][w]++
		}
		total += len(d)
	}
	avg := float64(total) / float64(max(len(docs), 1))
	seen := map[string]bool{}
	scores := make([]float64, len(docs))
	for _, q := range query {
		if seen[q] {
			continue
		}
		seen[q] = true
		for i := range docs {
			scores[i] += textutil.BM25(tfs[i][q], df[q], len(docs), float64(len(docs[i])), avg)
		}
	}
	idx := make([]int, 0, len(docs))
	for i, s := range scores {
		if s > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return idx[:min(k, len(idx))]
}
