package asking

import (
	"context"
	"slices"

	"github.com/mithub/mithub/pkg/ask"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
)

// askTurnHits is how many turn search hits an answer's evidence takes.
const askTurnHits = 40

// MaxSearchTurnsK bounds k of SearchTurns.
const MaxSearchTurnsK = 100

// SearchTurns ranks the turns of a meeting for a query, best first, at
// most k (meetingctx.Manager.SearchTurns with the service's weights):
// every topic's turns (cached between searches, with their embeddings)
// and the turns not yet in a topic. It waits for L1 like an ask does.
func (s *Service) SearchTurns(ctx context.Context, tenantID, meetingID, query string, k int) ([]meetingctx.TurnHit, error) {
	mt, err := s.Store.GetMeeting(ctx, tenantID, meetingID)
	if err != nil {
		return nil, err
	}
	m, err := s.Contexts.GetSyncedTo(ctx, tenantID, meetingID, mt.Utterances-1)
	if err != nil {
		return nil, err
	}
	m.WaitL1(ctx, s.L1Wait)
	return s.searchTurns(ctx, tenantID, meetingID, m, m.Snapshot(), query, k)
}

func (s *Service) weights() meetingctx.TurnWeights {
	if s.TurnWeights != nil {
		return *s.TurnWeights
	}
	return meetingctx.DefaultTurnWeights
}

// searchTurns searches the turns of snap's topics and its pending turns.
func (s *Service) searchTurns(ctx context.Context, tenantID, meetingID string, m *meetingctx.Manager, snap meetingctx.Snapshot, query string, k int) ([]meetingctx.TurnHit, error) {
	var turns []meetingctx.Turn
	var vecs [][]float32
	var docs []*ask.Indexed
	for _, t := range snap.Topics {
		x, v, err := s.topicTurnsVecs(ctx, tenantID, meetingID, m, t)
		if err != nil {
			return nil, err
		}
		for i := range x.Docs {
			turns = append(turns, x.Docs[i].Turn)
			docs = append(docs, &x.Docs[i])
		}
		vecs = append(vecs, v...)
	}
	pending, err := m.EmbedTurns(ctx, snap.Pending)
	if err != nil {
		return nil, err
	}
	pendDocs := ask.Index(snap.Pending)
	for i := range pendDocs {
		docs = append(docs, &pendDocs[i])
	}
	turns = append(turns, snap.Pending...)
	vecs = append(vecs, pending...)
	q := m.TurnQuery(ctx, query, turns, vecs)
	// Indexed turns carry their terms: no tokenising per search.
	q.TermsOf = func(i int) ([]string, []int32) { return docs[i].Terms, docs[i].Freqs }
	return meetingctx.RankTurns(q, s.weights(), k), nil
}

// topicTurnsVecs returns a topic's indexed turns and their embeddings,
// both cached.
func (s *Service) topicTurnsVecs(ctx context.Context, tenantID, meetingID string, m *meetingctx.Manager, t meetingctx.Topic) (*ask.TurnIndex, [][]float32, error) {
	docs, err := s.topicTurns(ctx, tenantID, meetingID, t)
	if err != nil {
		return nil, nil, err
	}
	key := topicKeyOf(tenantID, meetingID, t)
	if v, ok := s.topicCache().vecs(key); ok && len(v) == len(docs.Docs) {
		return docs, v, nil
	}
	turns := make([]meetingctx.Turn, len(docs.Docs))
	for i := range docs.Docs {
		turns[i] = docs.Docs[i].Turn
	}
	v, err := m.EmbedTurns(ctx, turns)
	if err != nil {
		return nil, nil, err
	}
	s.topicCache().setVecs(key, v)
	return docs, v, nil
}

func topicKeyOf(tenantID, meetingID string, t meetingctx.Topic) topicKey {
	return topicKey{tenantID: tenantID, meetingID: meetingID, topicID: t.ID, version: t.Version, startSeq: t.StartSeq, endSeq: t.EndSeq}
}

// searchedFromTurns groups the best turn hits by topic for an answer's
// evidence: topics in the order of their best hit, each topic's hit
// turns best first. Hits not yet in a topic are left to the pending
// section.
func (s *Service) searchedFromTurns(ctx context.Context, tenantID, meetingID string, snap meetingctx.Snapshot, hits []meetingctx.TurnHit) ([]ask.SearchedTopic, error) {
	byID := make(map[string]meetingctx.Topic, len(snap.Topics))
	for _, t := range snap.Topics {
		byID[t.ID] = t
	}
	var out []ask.SearchedTopic
	at := map[string]int{}
	for _, h := range hits {
		t, ok := byID[h.TopicID]
		if !ok {
			continue
		}
		i, seen := at[t.ID]
		if !seen {
			docs, err := s.topicTurns(ctx, tenantID, meetingID, t)
			if err != nil {
				return nil, err
			}
			i = len(out)
			at[t.ID] = i
			out = append(out, ask.SearchedTopic{Topic: meetingctx.ScoredTopic{Topic: t, Score: h.Score}, Index: docs})
		}
		docs := out[i].Index
		j := h.Seq - t.StartSeq
		if j < 0 || j >= len(docs.Docs) || docs.Docs[j].Turn.Seq != h.Seq {
			j = slices.IndexFunc(docs.Docs, func(d ask.Indexed) bool { return d.Turn.Seq == h.Seq })
		}
		if j >= 0 {
			out[i].Order = append(out[i].Order, j)
		}
	}
	for i := range out {
		out[i].Topic.Embedding = nil
	}
	return out, nil
}

// readTopic reads all of a topic's turns.
func (s *Service) readTopic(ctx context.Context, tenantID, meetingID string, t meetingctx.Topic) ([]store.Transcript, error) {
	return s.Store.TranscriptRange(ctx, tenantID, meetingID, t.StartSeq, t.EndSeq, t.EndSeq-t.StartSeq+1)
}
