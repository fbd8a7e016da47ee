package meetingctx_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
)

func TestRRF(t *testing.T) {
	tests := []struct {
		name string
		give [][]string
		want map[string]float64
	}{
		{"no lists", nil, map[string]float64{}},
		{"one list", [][]string{{"a", "b", "c"}},
			map[string]float64{"a": 1.0 / 61, "b": 1.0 / 62, "c": 1.0 / 63}},
		{"two lists add up by rank", [][]string{{"a", "b", "c"}, {"c", "a"}},
			map[string]float64{"a": 1.0/61 + 1.0/62, "b": 1.0 / 62, "c": 1.0/63 + 1.0/61}},
		{"an empty list adds nothing", [][]string{{}, {"x"}},
			map[string]float64{"x": 1.0 / 61}},
		{"second in both beats first in one", [][]string{{"lex", "both"}, {"cos", "both"}},
			map[string]float64{"lex": 1.0 / 61, "cos": 1.0 / 61, "both": 2.0 / 62}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := meetingctx.RRF(tt.give...)
			if len(got) != len(tt.want) {
				t.Fatalf("RRF(%v) = %v, want %v", tt.give, got, tt.want)
			}
			for k, w := range tt.want {
				if math.Abs(got[k]-w) > 1e-15 {
					t.Fatalf("RRF(%v)[%q] = %v, want %v", tt.give, k, got[k], w)
				}
			}
		})
	}
}

// vecEmbedder embeds texts by a fixed table.
type vecEmbedder map[string][]float32

func (e vecEmbedder) Dimension() int { return 3 }
func (e vecEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := e[t]
		if !ok {
			return nil, fmt.Errorf("no vector for %q", t)
		}
		out[i] = v
	}
	return out, nil
}

// fusionMeeting has three topics for the query "budget":
//   - "lexical" says budget three times; its embedding is orthogonal to the
//     query's (below the cosine threshold): first by BM25 only;
//   - "semantic" never says budget; its embedding is the query's: first by
//     cosine only;
//   - "both" says budget once (second by BM25) and its embedding is close
//     (cosine 0.8, second by cosine).
//
// Only the fusion of both rankings puts "both" first: 1/62+1/62 beats
// 1/61.
func fusionMeeting(t *testing.T) *meetingctx.Manager {
	t.Helper()
	eng := meetingctx.NewEngine(meetingctx.EngineDeps{Embedder: vecEmbedder{"budget": {1, 0, 0}}})
	t.Cleanup(func() { _ = eng.Close(5 * time.Second) })
	texts := []string{
		"budget budget review", "the budget is late", // lexical
		"money for next quarter", "spending limits", // semantic
		"the budget and the hiring plan", "hiring plan", // both
	}
	turns := make([]meetingctx.Turn, len(texts))
	for i, s := range texts {
		turns[i] = meetingctx.Turn{Seq: i, SegmentID: fmt.Sprint("s", i), SpeakerID: "a", Text: s, Tokens: 4,
			StartMS: int64(i) * 1000, EndMS: int64(i)*1000 + 900}
	}
	topics := []meetingctx.Topic{
		{ID: "lexical", Seq: 0, Title: "lexical", StartSeq: 0, EndSeq: 1, Embedding: []float32{0, 0, 1}},
		{ID: "semantic", Seq: 1, Title: "semantic", StartSeq: 2, EndSeq: 3, Embedding: []float32{1, 0, 0}},
		{ID: "both", Seq: 2, Title: "both", StartSeq: 4, EndSeq: 5, Embedding: []float32{0.8, 0.6, 0}},
	}
	m, err := meetingctx.Restore("t", "m", meetingctx.Config{}, eng, meetingctx.State{Turns: turns, Topics: topics})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Topic search ranks first the topic that is second in both the cosine
// and the BM25 ranking, above those first in only one: dropping either leg
// of the fusion puts another topic first.
func TestSearchFusesCosineAndBM25(t *testing.T) {
	m := fusionMeeting(t)
	hits, err := m.Search(context.Background(), "budget", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 || hits[0].ID != "both" {
		t.Fatalf("hits %+v: want all three, \"both\" first", hits)
	}
	by := map[string]meetingctx.ScoredTopic{}
	for _, h := range hits {
		by[h.ID] = h
	}
	// The fixture's premise: each leg alone ranks another topic first.
	if !(by["lexical"].BM25 > by["both"].BM25 && by["both"].BM25 > 0 && by["semantic"].BM25 == 0) {
		t.Fatalf("BM25 lexical %v both %v semantic %v: want lexical > both > 0 = semantic",
			by["lexical"].BM25, by["both"].BM25, by["semantic"].BM25)
	}
	if math.Abs(by["semantic"].Cosine-1) > 1e-6 || math.Abs(by["both"].Cosine-0.8) > 1e-6 || by["lexical"].Cosine != 0 {
		t.Fatalf("cosine semantic %v both %v lexical %v: want 1, 0.8, 0 (below the threshold)",
			by["semantic"].Cosine, by["both"].Cosine, by["lexical"].Cosine)
	}
	want := map[string]float64{"both": 2.0 / 62, "lexical": 1.0 / 61, "semantic": 1.0 / 61}
	for id, w := range want {
		if math.Abs(by[id].Score-w) > 1e-12 {
			t.Errorf("%s: score %v, want %v", id, by[id].Score, w)
		}
	}
}
