package ask

import (
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/meetingctx"
)

// DefaultTopicCacheBytes bounds the indexed topic turns and their turn
// embeddings kept between asks (MITHUB_ASK_TOPIC_CACHE_BYTES): enough
// for every topic of 100 meetings of 500 turns with 256-dimension
// embeddings (about 1.8 KB per QMSum turn, 1 KB of it the embedding:
// 90 MB estimated for those 50,000 turns in bench-ask); a smaller bound trades ask latency and CPU (topics read
// again from PostgreSQL and embedded again in the background) for memory.
const DefaultTopicCacheBytes = 128 << 20

// topicKey names one version of a topic: a topic that grows or merges gets
// a new version, and so a new key.
type topicKey struct {
	tenantID, meetingID, topicID string
	version, startSeq, endSeq    int
}

// topicID names a topic across its versions.
type topicID struct{ tenantID, meetingID, topicID string }

func (k topicKey) topic() topicID { return topicID{k.tenantID, k.meetingID, k.topicID} }

type topicEntry struct {
	docs *answer.TurnIndex
	// vecs are the embeddings of docs' turns, packed for turn search,
	// once computed (see setVecs).
	vecs *meetingctx.PackedVecs
	size int64
}

// topicCache keeps indexed topic turns, least recently used first out,
// bounded by their estimated size in bytes. Only the newest version of a
// topic is kept: adding a version drops the one before it, and a merged
// topic drops the topics it absorbed.
type topicCache struct {
	mu     sync.Mutex
	max    int64
	bytes  int64
	lru    *simplelru.LRU[topicKey, topicEntry]
	latest map[topicID]topicKey
	// pending holds the embeddings of turns not yet in a topic, per
	// meeting (a topicID without topic) and seq. Each meeting's are
	// bounded by its pending turns: setPending drops turns that left.
	pending map[topicID]map[int][]float32
}

// newTopicCache returns a cache of at most maxBytes; maxBytes <= 0 keeps
// nothing.
func newTopicCache(maxBytes int64) *topicCache {
	c := &topicCache{max: maxBytes, latest: map[topicID]topicKey{}, pending: map[topicID]map[int][]float32{}}
	// The size bound is the bytes; the entry bound only has to be out of
	// its way.
	c.lru, _ = simplelru.NewLRU[topicKey, topicEntry](1<<30, func(k topicKey, e topicEntry) {
		c.bytes -= e.size
		if c.latest[k.topic()] == k {
			delete(c.latest, k.topic())
		}
	})
	return c
}

func (c *topicCache) get(k topicKey) (*answer.TurnIndex, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Get(k)
	return e.docs, ok
}

// add caches docs under k, dropping older versions of the topic and of
// the topics mergedFrom names, then the least recently used entries until
// the cache fits. An index larger than the whole cache is not kept.
func (c *topicCache) add(k topicKey, mergedFrom []string, docs *answer.TurnIndex) {
	size := turnIndexSize(docs)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range mergedFrom {
		if old, ok := c.latest[topicID{k.tenantID, k.meetingID, id}]; ok {
			c.lru.Remove(old)
		}
	}
	if old, ok := c.latest[k.topic()]; ok && old != k {
		if old.version > k.version {
			// A slower ask read an older version: keep the newer one.
			return
		}
		c.lru.Remove(old)
	}
	if size > c.max {
		return
	}
	c.lru.Remove(k)
	c.lru.Add(k, topicEntry{docs: docs, size: size})
	c.latest[k.topic()] = k
	c.bytes += size
	for c.bytes > c.max {
		c.lru.RemoveOldest()
	}
}

// vecs returns the turn embeddings cached with k's turns.
func (c *topicCache) vecs(k topicKey) (*meetingctx.PackedVecs, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Peek(k)
	if !ok || e.vecs == nil {
		return nil, false
	}
	return e.vecs, true
}

// setVecs keeps the turn embeddings of k's turns beside them, counting
// their bytes against the bound; without k's turns cached it does nothing.
func (c *topicCache) setVecs(k topicKey, vecs *meetingctx.PackedVecs) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Peek(k)
	if !ok || e.vecs != nil {
		return
	}
	size := int64(vecs.Bytes())
	e.vecs = vecs
	e.size += size
	c.lru.Add(k, e)
	c.bytes += size
	for c.bytes > c.max && c.lru.Len() > 0 {
		c.lru.RemoveOldest()
	}
}

// dropMeeting removes every topic of a meeting.
func (c *topicCache) dropMeeting(tenantID, meetingID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var keys []topicKey
	for id, k := range c.latest {
		if id.tenantID == tenantID && id.meetingID == meetingID {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		c.lru.Remove(k)
	}
	delete(c.pending, topicID{tenantID, meetingID, ""})
}

// pendingVecs returns the cached embeddings of pending turns (nil for a
// turn without one) and the indexes of the turns not cached.
func (c *topicCache) pendingVecs(tenantID, meetingID string, turns []meetingctx.Turn) ([][]float32, []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	have := c.pending[topicID{tenantID, meetingID, ""}]
	out := make([][]float32, len(turns))
	var missing []int
	for i, t := range turns {
		if v, ok := have[t.Seq]; ok {
			out[i] = v
		} else {
			missing = append(missing, i)
		}
	}
	return out, missing
}

// setPending keeps the embeddings of a meeting's pending turns (vecs[i]
// of turns[i]; nil is kept too: a turn the embedder refuses is not tried
// again) and drops those of turns before firstSeq, the first pending
// turn's, which are in a topic by now.
func (c *topicCache) setPending(tenantID, meetingID string, firstSeq int, turns []meetingctx.Turn, vecs [][]float32) {
	if len(turns) == 0 || c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	id := topicID{tenantID, meetingID, ""}
	have := c.pending[id]
	if have == nil {
		have = map[int][]float32{}
		c.pending[id] = have
	}
	for seq := range have {
		if seq < firstSeq {
			delete(have, seq)
		}
	}
	for i, t := range turns {
		if i < len(vecs) {
			have[t.Seq] = vecs[i]
		}
	}
}

// stats returns the entries and their estimated bytes.
func (c *topicCache) stats() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}

// Estimated sizes, in bytes, of what an index holds besides string data:
// an indexed turn (the turn, slice headers, counts and signature), a term
// of a turn (its string header, frequency, posting and share of the
// inverted index's map) and an entry of the cache with the index's fixed
// parts. The estimate counts the cleaned sentences an answer caches with a
// turn as twice its text; without them, indexes of Bed002's turns (inverted
// index of stems included) hold 0.90 to 1.04 times the estimate on the Go
// heap for topics of 10, 50 and 400 turns.
const (
	indexedTurnBytes = 288
	termBytes        = 16 + 4 + 8 + 32
	// stemBytes is a stem of a turn's own: its string header and count.
	stemBytes       = 16 + 4
	topicEntryBytes = 2048
	// stemPostingBytes is an entry of the inverted index of stems of an
	// index whose stems are its own: a posting and its share of the map.
	stemPostingBytes = 8 + 32
)

// turnIndexSize estimates the memory an index holds on to: its turns'
// text and fields, their terms and stems, and the inverted index (counted
// per term of a turn, which covers its map entries).
func turnIndexSize(x *answer.TurnIndex) int64 {
	n := int64(topicEntryBytes)
	for _, d := range x.Docs {
		t := d.Turn
		n += indexedTurnBytes + int64(len(t.Text)+len(t.SegmentID)+len(t.SpeakerID)+len(t.SpeakerName))
		// The cleaned sentences and their terms that an extractive answer
		// caches with the turn: about twice the text.
		n += 2 * int64(len(t.Text))
		for _, w := range d.Terms {
			n += termBytes + int64(len(w))
		}
		// Stems of their own (stemming changed a term).
		if d.OwnStems() {
			for _, w := range d.Stems {
				n += stemBytes + int64(len(w))
			}
		}
	}
	return n + stemPostingBytes*int64(x.StemPostings())
}
