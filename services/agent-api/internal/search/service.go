package search

import (
	"context"
	"log/slog"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
)

// TopicSearcher searches stored topics across a tenant's meetings;
// *store.Store implements it.
type TopicSearcher interface {
	SearchTopics(ctx context.Context, tenantID, meetingID string, query []float32, k int, minScore float64) ([]store.ScoredTopic, error)
	SearchTopicsText(ctx context.Context, tenantID, meetingID string, terms []string, k int) ([]store.TextHit, error)
}

// QueryEmbedder embeds a search query; *meetingctx.Engine implements it.
// A nil vector with no error means there is no embedder.
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, q string) ([]float32, error)
}

// Contexts are the live meeting contexts; *meetingcache.Cache implements it.
type Contexts interface {
	// GetFresh returns the context caught up with the meeting row.
	GetFresh(ctx context.Context, tenantID, meetingID string) (*meetingctx.Manager, error)
}

// TurnSearcher ranks a meeting's turns; *ask.Service implements it.
type TurnSearcher interface {
	SearchTurns(ctx context.Context, tenantID, meetingID, query string, k int) ([]meetingctx.TurnHit, error)
}

// Service runs the search use cases.
type Service struct {
	Embedder QueryEmbedder
	Searcher TopicSearcher
	// Threshold is the minimum cosine for a vector hit.
	Threshold float64
	Contexts  Contexts
	Turns     TurnSearcher
	Log       *slog.Logger
}

// MeetingTopics ranks the meeting's topics for query by the context's
// hybrid search.
func (s *Service) MeetingTopics(ctx context.Context, tenantID, meetingID, query string, k int) ([]meetingctx.ScoredTopic, error) {
	m, err := s.Contexts.GetFresh(ctx, tenantID, meetingID)
	if err != nil {
		return nil, notFound(err)
	}
	return m.Search(ctx, query, k)
}

// SearchTurns returns the meeting's turns that best answer query, best first
// (the turn search the ask path uses for its evidence).
func (s *Service) SearchTurns(ctx context.Context, tenantID, meetingID, query string, k int) ([]meetingctx.TurnHit, error) {
	hits, err := s.Turns.SearchTurns(ctx, tenantID, meetingID, query, k)
	return hits, notFound(err)
}
