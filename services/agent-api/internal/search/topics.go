package search

import (
	"context"
	"sort"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/textutil"
)

// Pool is how many candidates each ranking gives before fusion.
const Pool = 50

// Hit is a topic found across meetings: its meeting, the topic, the fused
// score, and the cosine and text rank it came with (0 when one ranking
// did not find it).
type Hit struct {
	MeetingID string
	meetingctx.Topic
	Score  float64
	Cosine float64
	Rank   float64
}

// Topics ranks topics of all the tenant's meetings: cosine of embeddings
// (from the store, pgvector or exact) fused by reciprocal rank with a
// full-text match on titles, summaries and keywords; the best k, ties by
// topic id. When the query cannot be embedded, text search alone ranks.
func (s *Service) Topics(ctx context.Context, tenantID, query string, k int) ([]Hit, error) {
	hits := map[string]*Hit{}
	var byCos, byText []string
	if qvec, err := s.Embedder.EmbedQuery(ctx, query); err != nil {
		s.Log.WarnContext(ctx, "query embedding failed; text search only", "err", err)
	} else if qvec != nil {
		vs, err := s.Searcher.SearchTopics(ctx, tenantID, "", qvec, Pool, s.Threshold)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			h := hitOf(hits, v.TopicRow)
			h.Cosine = v.Score
			byCos = append(byCos, v.ID)
		}
	}
	// Topic text is searched as written: a loanword's term ("dashboard"
	// for "대시보드") is looked for in its Hangul spellings too.
	ts, err := s.Searcher.SearchTopicsText(ctx, tenantID, "", textutil.WithSpellings(textutil.Terms(nil, query)), Pool)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		h := hitOf(hits, t.TopicRow)
		h.Rank = t.Rank
		byText = append(byText, t.ID)
	}
	return fuse(hits, byCos, byText, k), nil
}

// fuse scores the hits by reciprocal rank over the two rankings (ids in
// rank order) and returns the best k, ties by topic id.
func fuse(hits map[string]*Hit, byCos, byText []string, k int) []Hit {
	out := make([]Hit, 0, len(hits))
	for id, score := range meetingctx.RRF(byCos, byText) {
		h := hits[id]
		h.Score = score
		out = append(out, *h)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// hitOf returns the hit of row r, adding it on first sight.
func hitOf(hits map[string]*Hit, r store.TopicRow) *Hit {
	if h, ok := hits[r.ID]; ok {
		return h
	}
	h := &Hit{MeetingID: r.MeetingID, Topic: meetingctx.Topic{
		ID: r.ID, Seq: r.Seq, Title: r.Title, Summary: r.Summary, Keywords: r.Keywords,
		StartSeq: r.StartSeq, EndSeq: r.EndSeq, StartMS: r.StartMS, EndMS: r.EndMS, Version: r.Version,
	}}
	hits[r.ID] = h
	return h
}
