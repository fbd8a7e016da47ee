package httpapi

import (
	"context"
	"sort"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/textutil"
)

// TopicSearcher searches stored topics across a tenant's meetings.
type TopicSearcher interface {
	SearchTopics(ctx context.Context, tenantID, meetingID string, query []float32, k int, minScore float64) ([]store.ScoredTopic, error)
	SearchTopicsText(ctx context.Context, tenantID, meetingID string, terms []string, k int) ([]store.TextHit, error)
}

type searchHitJSON struct {
	MeetingID string `json:"meeting_id"`
	meetingctx.Topic
	Score  float64 `json:"score"`
	Cosine float64 `json:"cosine"`
	Rank   float64 `json:"text_rank"`
}

type searchJSON struct {
	Query   string          `json:"query"`
	Results []searchHitJSON `json:"results"`
}

// candidates per ranking before fusion.
const searchPool = 50

// search ranks topics of all the tenant's meetings: cosine of embeddings
// (from the store, pgvector or exact) fused by reciprocal rank with a
// full-text match on titles, summaries and keywords.
func (s *Server) search(c *fiber.Ctx) error {
	q, k, err := searchParams(c)
	if err != nil {
		return err
	}
	if q == "" {
		return errInvalid("query parameter q is required")
	}
	tenant := tenantOf(c).ID
	ctx := c.UserContext()
	hits := map[string]*searchHitJSON{}
	var byCos, byText []string

	if qvec, err := s.Engine.EmbedQuery(ctx, q); err != nil {
		s.Log.WarnContext(ctx, "query embedding failed; text search only", "err", err)
	} else if qvec != nil {
		vs, err := s.Searcher.SearchTopics(ctx, tenant, "", qvec, searchPool, s.SearchThreshold)
		if err != nil {
			return err
		}
		for _, v := range vs {
			h := hit(hits, v.TopicRow)
			h.Cosine = v.Score
			byCos = append(byCos, v.ID)
		}
	}
	ts, err := s.Searcher.SearchTopicsText(ctx, tenant, "", textutil.Terms(nil, q), searchPool)
	if err != nil {
		return err
	}
	for _, t := range ts {
		h := hit(hits, t.TopicRow)
		h.Rank = t.Rank
		byText = append(byText, t.ID)
	}
	out := make([]searchHitJSON, 0, len(hits))
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
	return c.JSON(searchJSON{Query: q, Results: out})
}

func hit(hits map[string]*searchHitJSON, r store.TopicRow) *searchHitJSON {
	if h, ok := hits[r.ID]; ok {
		return h
	}
	h := &searchHitJSON{MeetingID: r.MeetingID, Topic: meetingctx.Topic{
		ID: r.ID, Seq: r.Seq, Title: r.Title, Summary: r.Summary, Keywords: r.Keywords,
		StartSeq: r.StartSeq, EndSeq: r.EndSeq, StartMS: r.StartMS, EndMS: r.EndMS, Version: r.Version,
	}}
	hits[r.ID] = h
	return h
}
