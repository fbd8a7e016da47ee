package search

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/mithub/mithub/pkg/store"
)

// fakeEmbedder returns vec, or fails when err is set.
type fakeEmbedder struct {
	vec []float32
	err error
}

func (f fakeEmbedder) EmbedQuery(context.Context, string) ([]float32, error) { return f.vec, f.err }

// fakeSearcher ranks fixed topics.
type fakeSearcher struct {
	byCos  []store.ScoredTopic
	byText []store.TextHit
	vector bool     // whether SearchTopics was called
	terms  []string // what SearchTopicsText was asked for
}

func (f *fakeSearcher) SearchTopics(context.Context, string, string, []float32, int, float64) ([]store.ScoredTopic, error) {
	f.vector = true
	return f.byCos, nil
}

func (f *fakeSearcher) SearchTopicsText(_ context.Context, _, _ string, terms []string, _ int) ([]store.TextHit, error) {
	f.terms = terms
	return f.byText, nil
}

func row(id string) store.TopicRow {
	var r store.TopicRow
	r.ID, r.MeetingID, r.Title = id, "m-"+id, "topic "+id
	return r
}

func newService(e QueryEmbedder, s TopicSearcher) *Service {
	return &Service{Embedder: e, Searcher: s, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestTopicsFusesBothRankings(t *testing.T) {
	s := &fakeSearcher{
		byCos:  []store.ScoredTopic{{TopicRow: row("a"), Score: 0.9}, {TopicRow: row("b"), Score: 0.8}},
		byText: []store.TextHit{{TopicRow: row("b"), Rank: 2}, {TopicRow: row("c"), Rank: 1}},
	}
	hits, err := newService(fakeEmbedder{vec: []float32{1}}, s).Topics(context.Background(), "t", "q", 10)
	if err != nil {
		t.Fatal(err)
	}
	// b is in both rankings; a is first of one, c second of the other.
	if got := ids(hits); len(got) != 3 || got[0] != "b" || got[1] != "a" || got[2] != "c" {
		t.Fatalf("order %v", got)
	}
	if b := hits[0]; b.Cosine != 0.8 || b.Rank != 2 || b.MeetingID != "m-b" || b.Title != "topic b" {
		t.Errorf("fused hit %+v", b)
	}
	if hits[0].Score <= hits[1].Score || hits[1].Score <= hits[2].Score {
		t.Errorf("scores %v %v %v", hits[0].Score, hits[1].Score, hits[2].Score)
	}
}

func TestTopicsKeepsTheBestKWithTiesByID(t *testing.T) {
	s := &fakeSearcher{
		byCos:  []store.ScoredTopic{{TopicRow: row("y")}, {TopicRow: row("z")}},
		byText: []store.TextHit{{TopicRow: row("x")}},
	}
	hits, err := newService(fakeEmbedder{vec: []float32{1}}, s).Topics(context.Background(), "t", "q", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); len(got) != 2 || got[0] != "x" || got[1] != "y" {
		t.Errorf("hits %v", got)
	}
}

func TestTopicsFallsBackToTextWhenEmbeddingFails(t *testing.T) {
	s := &fakeSearcher{byCos: []store.ScoredTopic{{TopicRow: row("a")}}, byText: []store.TextHit{{TopicRow: row("c")}}}
	hits, err := newService(fakeEmbedder{err: errors.New("model down")}, s).Topics(context.Background(), "t", "q", 5)
	if err != nil {
		t.Fatal(err)
	}
	if s.vector || len(hits) != 1 || hits[0].ID != "c" {
		t.Errorf("vector search called %v, hits %v", s.vector, ids(hits))
	}
}

// Topic text is stored as written, so a loanword is looked for in English
// and in its Hangul spellings whichever the question used.
func TestTopicsLooksForLoanwordsInBothSpellings(t *testing.T) {
	for _, q := range []string{"대시보드 일정", "dashboard 일정"} {
		f := &fakeSearcher{}
		if _, err := newService(fakeEmbedder{err: errors.New("down")}, f).Topics(context.Background(), "t", q, 5); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"dashboard", "대시보드", "일정"} {
			if !slices.Contains(f.terms, want) {
				t.Errorf("%q: text search for %q, want %q among them", q, f.terms, want)
			}
		}
	}
}
