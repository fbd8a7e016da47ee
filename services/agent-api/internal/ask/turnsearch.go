package ask

import (
	"context"
	"slices"
	"sync"

	"github.com/mithub/mithub/pkg/answer"
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
// and the turns not yet in a topic. It waits for L1 like an ask does,
// and embeds the turns whose embeddings are not cached yet, so its
// results do not depend on what earlier searches left in the cache.
func (s *Service) SearchTurns(ctx context.Context, tenantID, meetingID, query string, k int) ([]meetingctx.TurnHit, error) {
	mt, err := s.Store.GetMeeting(ctx, tenantID, meetingID)
	if err != nil {
		return nil, err
	}
	m, err := s.Contexts.GetAt(ctx, tenantID, meetingID, mt)
	if err != nil {
		return nil, err
	}
	m.WaitL1(ctx, s.L1Wait)
	return s.searchTurns(ctx, tenantID, meetingID, m, m.Snapshot(), query, k, true)
}

func (s *Service) weights() meetingctx.TurnWeights {
	if s.TurnWeights != nil {
		return *s.TurnWeights
	}
	return meetingctx.DefaultTurnWeights
}

// searchTurns searches the turns of snap's topics and its pending turns.
// With embed, turns without cached embeddings are embedded first; without
// (the ask path), they are searched without the embedding leg while a
// background job embeds them, and the same search once they are cached
// gives what a search with embed gives.
func (s *Service) searchTurns(ctx context.Context, tenantID, meetingID string, m *meetingctx.Manager, snap meetingctx.Snapshot, query string, k int, embed bool) ([]meetingctx.TurnHit, error) {
	type topicPart struct {
		x    *answer.TurnIndex
		vecs *meetingctx.PackedVecs
	}
	parts := make([]topicPart, 0, len(snap.Topics))
	n := len(snap.Pending)
	for _, t := range snap.Topics {
		x, v, err := s.topicTurnsVecs(ctx, tenantID, meetingID, m, t, embed)
		if err != nil {
			return nil, err
		}
		parts = append(parts, topicPart{x, v})
		n += len(x.Docs)
	}
	pending, err := s.pendingVecs(ctx, tenantID, meetingID, m, snap.Pending, embed)
	if err != nil {
		return nil, err
	}
	// Indexed turns carry their terms: no tokenising per search.
	var set answer.TurnSet
	buf := searchBufs.Get().(*searchBuf)
	defer buf.put()
	turns, runs := slices.Grow(buf.turns[:0], n), buf.runs[:0]
	for _, p := range parts {
		// A topic without its embeddings yet is in no run.
		if p.vecs != nil {
			runs = append(runs, meetingctx.PackedRun{At: len(turns), Vecs: p.vecs})
		}
		for i := range p.x.Docs {
			turns = append(turns, p.x.Docs[i].Turn)
		}
		set.AddIndex(p.x)
	}
	pendDocs := answer.Index(snap.Pending)
	loose := make([]*answer.Indexed, len(pendDocs))
	for i := range pendDocs {
		loose[i] = &pendDocs[i]
	}
	set.AddTurns(loose)
	runs = append(runs, meetingctx.PackedRun{At: len(turns), Vecs: meetingctx.PackVecs(pending)})
	turns = append(turns, snap.Pending...)
	buf.turns, buf.runs = turns, runs
	q := m.TurnQuery(ctx, query, turns, nil)
	q.Packed, q.Indexed = runs, &set
	return meetingctx.RankTurns(q, s.weights(), k), nil
}

// searchBuf holds the turn list and embedding runs of one search between
// searches (RankTurns keeps neither): copying a meeting's turns into a
// fresh list on every ask was the ask path's largest allocation.
type searchBuf struct {
	turns []meetingctx.Turn
	runs  []meetingctx.PackedRun
}

var searchBufs = sync.Pool{New: func() any { return new(searchBuf) }}

// put clears the lists, so the pool holds no turn text or embedding,
// and returns them to the pool.
func (b *searchBuf) put() {
	clear(b.turns)
	clear(b.runs)
	searchBufs.Put(b)
}

// topicTurnsVecs returns a topic's indexed turns and their embeddings,
// both cached. Embeddings not cached yet are computed with embed, else
// left to a background job (nil is returned for them).
func (s *Service) topicTurnsVecs(ctx context.Context, tenantID, meetingID string, m *meetingctx.Manager, t meetingctx.Topic, embed bool) (*answer.TurnIndex, *meetingctx.PackedVecs, error) {
	docs, err := s.topicTurns(ctx, tenantID, meetingID, t)
	if err != nil {
		return nil, nil, err
	}
	key := topicKeyOf(tenantID, meetingID, t)
	c := s.topicCache()
	if v, ok := c.vecs(key); ok && v.Len() == len(docs.Docs) {
		return docs, v, nil
	}
	turns := make([]meetingctx.Turn, len(docs.Docs))
	for i := range docs.Docs {
		turns[i] = docs.Docs[i].Turn
	}
	if !embed {
		s.embedJobs().start(key, func(ctx context.Context) {
			if _, ok := c.vecs(key); ok {
				return
			}
			v, err := m.EmbedTurns(ctx, turns)
			if err != nil {
				s.Log.Warn("embedding topic turns", "meeting_id", meetingID, "topic_id", t.ID, "err", err)
				return
			}
			c.setVecs(key, meetingctx.PackVecs(v))
		})
		return docs, nil, nil
	}
	v, err := m.EmbedTurns(ctx, turns)
	if err != nil {
		return nil, nil, err
	}
	packed := meetingctx.PackVecs(v)
	c.setVecs(key, packed)
	return docs, packed, nil
}

// pendingKey names the background job embedding a meeting's pending turns.
type pendingKey struct{ tenantID, meetingID string }

// pendingVecs returns the embeddings of pending turns, cached per turn;
// those missing are computed with embed, else left to a background job
// (nil for them).
func (s *Service) pendingVecs(ctx context.Context, tenantID, meetingID string, m *meetingctx.Manager, pending []meetingctx.Turn, embed bool) ([][]float32, error) {
	c := s.topicCache()
	vecs, at := c.pendingVecs(tenantID, meetingID, pending)
	if len(at) == 0 {
		return vecs, nil
	}
	first := pending[0].Seq
	todo := make([]meetingctx.Turn, len(at))
	for j, i := range at {
		todo[j] = pending[i]
	}
	if !embed {
		s.embedJobs().start(pendingKey{tenantID, meetingID}, func(ctx context.Context) {
			v, err := m.EmbedTurns(ctx, todo)
			if err != nil {
				s.Log.Warn("embedding pending turns", "meeting_id", meetingID, "err", err)
				return
			}
			c.setPending(tenantID, meetingID, first, todo, v)
		})
		return vecs, nil
	}
	v, err := m.EmbedTurns(ctx, todo)
	if err != nil {
		return nil, err
	}
	c.setPending(tenantID, meetingID, first, todo, v)
	for j, i := range at {
		vecs[i] = v[j]
	}
	return vecs, nil
}

func topicKeyOf(tenantID, meetingID string, t meetingctx.Topic) topicKey {
	return topicKey{tenantID: tenantID, meetingID: meetingID, topicID: t.ID, version: t.Version, startSeq: t.StartSeq, endSeq: t.EndSeq}
}

// searchedFromTurns groups the best turn hits by topic for an answer's
// evidence: topics in the order of their best hit, each topic's hit
// turns best first. Hits not yet in a topic are left to the pending
// section.
func (s *Service) searchedFromTurns(ctx context.Context, tenantID, meetingID string, snap meetingctx.Snapshot, hits []meetingctx.TurnHit) ([]answer.SearchedTopic, error) {
	byID := make(map[string]meetingctx.Topic, len(snap.Topics))
	for _, t := range snap.Topics {
		byID[t.ID] = t
	}
	var out []answer.SearchedTopic
	at := map[string]int{}
	for rank, h := range hits {
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
			out = append(out, answer.SearchedTopic{Topic: meetingctx.ScoredTopic{Topic: t, Score: h.Score}, Index: docs})
		}
		docs := out[i].Index
		j := h.Seq - t.StartSeq
		if j < 0 || j >= len(docs.Docs) || docs.Docs[j].Turn.Seq != h.Seq {
			j = slices.IndexFunc(docs.Docs, func(d answer.Indexed) bool { return d.Turn.Seq == h.Seq })
		}
		if j >= 0 {
			out[i].Order = append(out[i].Order, j)
			out[i].Ranks = append(out[i].Ranks, rank+1)
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
