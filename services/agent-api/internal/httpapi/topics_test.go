package httpapi_test

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// twoSubjects is a meeting that talks about the budget, then about hiring.
func twoSubjects(n int) []utterance {
	budget := []string{"The marketing budget for next quarter is too high", "We should cut the advertising budget by ten percent",
		"마케팅 예산을 다음 분기에 줄여야 합니다", "The budget review needs finance approval", "광고 예산 10% 삭감에 동의합니다"}
	hiring := []string{"We need to hire two backend engineers", "The hiring plan for engineers starts in March",
		"백엔드 엔지니어 채용 공고를 다음 주에 올립시다", "Interview loops for the engineer candidates", "채용 인터뷰 일정은 인사팀이 잡습니다"}
	out := make([]utterance, n)
	for i := range out {
		src := budget
		if i >= n/2 {
			src = hiring
		}
		out[i] = utterance{SegmentID: fmt.Sprintf("s-%03d", i), SpeakerID: fmt.Sprint("spk", i%3), SpeakerName: []string{"김민수", "Alice", "Bob"}[i%3],
			Text: src[i%len(src)], StartMS: int64(i) * 4000, EndMS: int64(i)*4000 + 3500, Confidence: 0.95}
	}
	return out
}

func TestTopicsSegmentSearchAndSurviveRestart(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	h.post(key, m.ID, twoSubjects(60))
	c := h.context(key, m.ID)
	if c.L1.Cursor != 49 || len(c.Pending.Turns) != 10 || c.Pending.Turns[0].Seq != 50 || c.L1.Waited == nil || !*c.L1.Waited {
		t.Fatalf("l1 cursor %d, %d pending, waited %v", c.L1.Cursor, len(c.Pending.Turns), c.L1.Waited)
	}
	next := 0
	for _, tp := range c.L1.Topics {
		if tp.StartSeq != next || tp.Summary == "" || tp.Title == "" {
			t.Fatalf("topic %+v does not continue at %d", tp, next)
		}
		next = tp.EndSeq + 1
	}
	if len(c.Speakers) != 3 || c.Speakers[0].Turns != 20 {
		t.Fatalf("speakers: %+v", c.Speakers)
	}

	r := h.do(http.MethodGet, "/v1/meetings/"+m.ID+"/topics?q=engineer+hiring+채용&k=2", key, nil)
	var res struct {
		Results []meetingctx.ScoredTopic `json:"results"`
	}
	r.decode(t, &res)
	if r.status != http.StatusOK || len(res.Results) == 0 || res.Results[0].EndSeq < 30 {
		t.Fatalf("search: %d %s", r.status, r.body)
	}

	// Ending the meeting segments the partial last chunk.
	h.do(http.MethodPost, "/v1/meetings/"+m.ID+"/end", key, nil)
	c = h.context(key, m.ID)
	if c.L1.Cursor != 59 || len(c.Pending.Turns) != 0 {
		t.Fatalf("after end: l1 cursor %d, %d pending", c.L1.Cursor, len(c.Pending.Turns))
	}

	// A fresh process rebuilds the same topics from Postgres.
	again := newHarnessOnStore(t, h).context(key, m.ID)
	if !reflect.DeepEqual(again.L1.Topics, c.L1.Topics) || !reflect.DeepEqual(again.Speakers, c.Speakers) {
		t.Fatalf("rebuilt topics differ:\n%+v\n%+v", again.L1.Topics, c.L1.Topics)
	}
}

func TestTopicsQueryValidation(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	for _, q := range []string{"k=0", "k=51", "k=abc", "q=%ff%fe", "wait=maybe"} {
		path := "/v1/meetings/" + m.ID + "/topics?" + q
		if q == "wait=maybe" {
			path = "/v1/meetings/" + m.ID + "/context?" + q
		}
		if r := h.do(http.MethodGet, path, key, nil); r.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", q, r.status, r.body)
		}
	}
}

func TestSearchAcrossMeetingsStaysInTenant(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	keyA, keyB := h.key("tenant-a"), h.key("tenant-b")
	a1, a2 := h.createMeeting(keyA), h.createMeeting(keyA)
	b := h.createMeeting(keyB)
	subjects := twoSubjects(50)
	h.post(keyA, a1.ID, subjects[:25]) // budget
	h.post(keyA, a2.ID, subjects[25:]) // hiring
	h.post(keyB, b.ID, subjects[25:])  // hiring, another tenant
	for _, id := range []string{a1.ID, a2.ID} {
		h.context(keyA, id)
	}
	h.context(keyB, b.ID)

	r := h.do(http.MethodGet, "/v1/search?q=backend+engineers+채용&k=5", keyA, nil)
	var res struct {
		Results []struct {
			MeetingID string  `json:"meeting_id"`
			Score     float64 `json:"score"`
		} `json:"results"`
	}
	r.decode(t, &res)
	if r.status != http.StatusOK || len(res.Results) == 0 || res.Results[0].MeetingID != a2.ID {
		t.Fatalf("search: %d %s", r.status, r.body)
	}
	for _, hit := range res.Results {
		if hit.MeetingID == b.ID {
			t.Fatalf("tenant A's search returned tenant B's meeting: %s", r.body)
		}
	}
	if r := h.do(http.MethodGet, "/v1/search", keyA, nil); r.status != http.StatusBadRequest {
		t.Fatalf("search without q: %d", r.status)
	}
}
