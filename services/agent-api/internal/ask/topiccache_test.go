package ask

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/meetingctx"
)

func indexOf(n int, text string) *answer.TurnIndex {
	turns := make([]meetingctx.Turn, n)
	for i := range turns {
		turns[i] = meetingctx.Turn{Seq: i, SegmentID: fmt.Sprintf("seg-%d", i), SpeakerID: "s1", SpeakerName: "Kim", Text: fmt.Sprintf("%s %d", text, i)}
	}
	return answer.NewTurnIndex(turns)
}

func key(meeting, topic string, version int) topicKey {
	return topicKey{tenantID: "t", meetingID: meeting, topicID: topic, version: version, startSeq: 0, endSeq: 9}
}

func TestTopicCacheStaysWithinBytes(t *testing.T) {
	docs := indexOf(40, "we should ship the budget review before friday")
	size := turnIndexSize(docs)
	c := newTopicCache(10 * size)
	for i := range 100 {
		c.add(key(fmt.Sprintf("m%d", i%7), fmt.Sprintf("topic-%d", i), 1), nil, docs)
		if _, b := c.stats(); b > 10*size {
			t.Fatalf("after %d adds the cache holds %d bytes, over its bound %d", i+1, b, 10*size)
		}
	}
	n, b := c.stats()
	if n != 10 || b != 10*size {
		t.Fatalf("cache holds %d topics in %d bytes, want 10 in %d", n, b, 10*size)
	}
	// The least recently used went first.
	if _, ok := c.get(key("m1", "topic-99", 1)); !ok {
		t.Fatal("newest topic missing")
	}
	if _, ok := c.get(key("m6", "topic-89", 1)); ok {
		t.Fatal("an evicted topic is still there")
	}
}

func TestTopicCacheKeepsOnlyTheNewestVersion(t *testing.T) {
	docs := indexOf(10, "예산 검토를 금요일 전에 마무리하기로 했습니다")
	c := newTopicCache(1 << 20)
	c.add(key("m", "a", 1), nil, docs)
	c.add(key("m", "b", 1), nil, docs)
	c.add(key("m", "a", 2), nil, docs)
	if _, ok := c.get(key("m", "a", 1)); ok {
		t.Fatal("version 1 of a topic stayed after version 2 came")
	}
	if _, ok := c.get(key("m", "a", 2)); !ok {
		t.Fatal("version 2 missing")
	}
	// An ask that read an older version late does not push the newer out.
	c.add(key("m", "a", 1), nil, docs)
	if _, ok := c.get(key("m", "a", 2)); !ok {
		t.Fatal("an older version replaced the newer one")
	}
	// A merge drops the topics it absorbed.
	c.add(key("m", "c", 3), []string{"b"}, docs)
	if _, ok := c.get(key("m", "b", 1)); ok {
		t.Fatal("a merged-away topic stayed")
	}
	// The same topic id in another meeting is another topic.
	c.add(key("other", "a", 1), nil, docs)
	if _, ok := c.get(key("m", "a", 2)); !ok {
		t.Fatal("another meeting's topic replaced this one")
	}
	n, b := c.stats()
	if want := 3 * turnIndexSize(docs); n != 3 || b != want {
		t.Fatalf("cache holds %d topics in %d bytes, want 3 in %d", n, b, want)
	}
}

func TestTopicCacheSizeCountsBytesAndSkipsOversized(t *testing.T) {
	en := indexOf(20, strings.Repeat("budget ", 20))
	ko := indexOf(20, strings.Repeat("예산 ", 20))
	// Text is counted in bytes: a Korean syllable is three.
	for _, x := range []*answer.TurnIndex{en, ko} {
		text := 0
		for _, d := range x.Docs {
			text += len(d.Turn.Text)
		}
		if got := turnIndexSize(x); got < int64(text) {
			t.Fatalf("estimated %d bytes for turns of %d bytes of text", got, text)
		}
	}
	c := newTopicCache(turnIndexSize(en) - 1)
	c.add(key("m", "a", 1), nil, en)
	if n, b := c.stats(); n != 0 || b != 0 {
		t.Fatalf("an index larger than the cache was kept: %d topics, %d bytes", n, b)
	}
	off := newTopicCache(-1)
	off.add(key("m", "a", 1), nil, en)
	if n, _ := off.stats(); n != 0 {
		t.Fatal("a cache of no bytes kept a topic")
	}
}

func TestTopicCacheDropsAMeeting(t *testing.T) {
	docs := indexOf(10, "the budget for the remote control")
	c := newTopicCache(DefaultTopicCacheBytes)
	c.add(key("m", "a", 1), nil, docs)
	c.add(key("m", "b", 1), nil, docs)
	c.add(key("other", "a", 1), nil, docs)
	other := topicKey{tenantID: "t2", meetingID: "m", topicID: "a", version: 1}
	c.add(other, nil, docs)
	c.dropMeeting("t", "m")
	for _, k := range []topicKey{key("m", "a", 1), key("m", "b", 1)} {
		if _, ok := c.get(k); ok {
			t.Fatalf("topic %s of the dropped meeting stayed", k.topicID)
		}
	}
	for _, k := range []topicKey{key("other", "a", 1), other} {
		if _, ok := c.get(k); !ok {
			t.Fatalf("dropping meeting m of tenant t took %+v", k)
		}
	}
	if n, b := c.stats(); n != 2 || b != 2*turnIndexSize(docs) {
		t.Fatalf("after the drop: %d topics in %d bytes, want 2 in %d", n, b, 2*turnIndexSize(docs))
	}
}

// Pending turns' embeddings are kept per seq, still-pending ones survive
// a later set of other turns, turns before the first pending one go, and
// a dropped meeting loses them.
func TestTopicCachePendingVecs(t *testing.T) {
	c := newTopicCache(DefaultTopicCacheBytes)
	turns := []meetingctx.Turn{{Seq: 10, Text: "a"}, {Seq: 11, Text: "b"}, {Seq: 12, Text: "c"}}
	vecs, missing := c.pendingVecs("t", "m", turns)
	if len(vecs) != 3 || len(missing) != 3 {
		t.Fatalf("empty cache: %v, missing %v", vecs, missing)
	}
	c.setPending("t", "m", 10, turns[:2], [][]float32{{1}, {2}})
	// Seq 10 joined a topic: pending now starts at 11.
	c.setPending("t", "m", 11, turns[2:], [][]float32{{3}})
	vecs, missing = c.pendingVecs("t", "m", turns)
	if vecs[0] != nil || vecs[1][0] != 2 || vecs[2][0] != 3 || !slices.Equal(missing, []int{0}) {
		t.Fatalf("after pending moved to 11: %v, missing %v", vecs, missing)
	}
	if _, missing := c.pendingVecs("t", "other", turns); len(missing) != 3 {
		t.Fatal("another meeting saw m's pending embeddings")
	}
	c.dropMeeting("t", "m")
	if _, missing := c.pendingVecs("t", "m", turns); len(missing) != 3 {
		t.Fatal("a dropped meeting kept its pending embeddings")
	}
}
