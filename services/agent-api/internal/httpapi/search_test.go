package httpapi_test

import (
	"context"
	"math"
	"net/http"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/store"
)

// fixedSearcher answers every topic search with the same rankings and
// records the tenant it was asked for.
type fixedSearcher struct {
	byCosine []store.ScoredTopic
	byText   []store.TextHit

	mu      sync.Mutex
	tenants []string
}

func (f *fixedSearcher) SearchTopics(_ context.Context, tenantID, _ string, _ []float32, _ int, _ float64) ([]store.ScoredTopic, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tenants = append(f.tenants, tenantID)
	return f.byCosine, nil
}

func (f *fixedSearcher) SearchTopicsText(_ context.Context, tenantID, _ string, _ []string, _ int) ([]store.TextHit, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tenants = append(f.tenants, tenantID)
	return f.byText, nil
}

func topicRow(id, title string) store.TopicRow {
	return store.TopicRow{ID: id, MeetingID: "00000000-0000-0000-0000-00000000000" + id[len(id)-1:], Title: title}
}

// /v1/search ranks first the topic that is second in both the vector and
// the full-text ranking, above those first in only one: dropping either
// leg of the fusion puts another topic first.
func TestSearchFusesVectorAndTextRankings(t *testing.T) {
	// IDs order the tie between the two single-leg hits.
	cosOnly, textOnly, both := topicRow("topic-1", "cosine only"), topicRow("topic-2", "text only"), topicRow("topic-3", "both")
	f := &fixedSearcher{
		byCosine: []store.ScoredTopic{{TopicRow: cosOnly, Score: 0.9}, {TopicRow: both, Score: 0.7}},
		byText:   []store.TextHit{{TopicRow: textOnly, Rank: 0.5}, {TopicRow: both, Rank: 0.2}},
	}
	h := newHarness(t, harnessOpts{searcher: f})
	key := h.key("acme")

	r := h.do(http.MethodGet, "/v1/search?q=budget&k=5", key, nil)
	var res struct {
		Results []struct {
			ID        string  `json:"id"`
			MeetingID string  `json:"meeting_id"`
			Title     string  `json:"title"`
			Score     float64 `json:"score"`
			Cosine    float64 `json:"cosine"`
			Rank      float64 `json:"text_rank"`
		} `json:"results"`
	}
	r.decode(t, &res)
	if r.status != http.StatusOK {
		t.Fatalf("search: %d %s", r.status, r.body)
	}
	type hit struct {
		id            string
		score, cosine float64
		rank          float64
	}
	want := []hit{
		{both.ID, 2.0 / 62, 0.7, 0.2},
		{cosOnly.ID, 1.0 / 61, 0.9, 0},
		{textOnly.ID, 1.0 / 61, 0, 0.5},
	}
	if len(res.Results) != len(want) {
		t.Fatalf("%d results, want %d: %s", len(res.Results), len(want), r.body)
	}
	for i, w := range want {
		g := res.Results[i]
		if g.ID != w.id || math.Abs(g.Score-w.score) > 1e-12 || g.Cosine != w.cosine || g.Rank != w.rank {
			t.Fatalf("result %d: %s score %v cosine %v rank %v; want %s score %v cosine %v rank %v\n%s",
				i, g.ID, g.Score, g.Cosine, g.Rank, w.id, w.score, w.cosine, w.rank, r.body)
		}
	}
	if res.Results[0].Title != both.Title || res.Results[0].MeetingID != both.MeetingID {
		t.Fatalf("first hit %+v lost its topic fields", res.Results[0])
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.tenants) != 2 || f.tenants[0] != f.tenants[1] || f.tenants[0] == "" {
		t.Fatalf("searcher called for tenants %v, want both rankings for the caller's", f.tenants)
	}
}
