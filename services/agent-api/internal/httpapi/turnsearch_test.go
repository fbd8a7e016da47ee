package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

type turnSearchRes struct {
	MeetingID string `json:"meeting_id"`
	Hits      []struct {
		Seq         int     `json:"seq"`
		SpeakerName string  `json:"speaker_name"`
		StartMS     int64   `json:"start_ms"`
		Text        string  `json:"text"`
		Score       float64 `json:"score"`
		TopicID     string  `json:"topic_id"`
	} `json:"hits"`
}

// The search answers with the turns that hold the query's words, best
// first, each with its topic (or none while pending), in Korean and
// English, and never from another tenant's meeting.
func TestSearchTurns(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	utts := twoSubjects(60)
	utts[37].Text = "The quarterly offsite venue is the lighthouse hotel"
	utts[55].Text = "등대 호텔 워크숍 장소 예약은 금요일까지입니다"
	h.post(key, m.ID, utts)
	c := h.context(key, m.ID)
	if len(c.L1.Topics) == 0 || len(c.Pending.Turns) == 0 {
		t.Fatalf("want topics and pending turns, got %d topics, %d pending", len(c.L1.Topics), len(c.Pending.Turns))
	}
	search := func(q string, k int) turnSearchRes {
		t.Helper()
		r := h.do(http.MethodGet, fmt.Sprintf("/v1/meetings/%s/search?q=%s&k=%d", m.ID, url.QueryEscape(q), k), key, nil)
		var res turnSearchRes
		r.decode(t, &res)
		if r.status != http.StatusOK || res.MeetingID != m.ID {
			t.Fatalf("search %q: %d %s", q, r.status, r.body)
		}
		return res
	}
	res := search("lighthouse hotel venue", 3)
	if len(res.Hits) == 0 || res.Hits[0].Seq != 37 || res.Hits[0].Text != utts[37].Text || res.Hits[0].SpeakerName != utts[37].SpeakerName ||
		res.Hits[0].StartMS != utts[37].StartMS || res.Hits[0].TopicID == "" || len(res.Hits) > 3 {
		t.Fatalf("lighthouse: %+v", res.Hits)
	}
	for i := 1; i < len(res.Hits); i++ {
		if res.Hits[i].Score > res.Hits[i-1].Score {
			t.Fatalf("hits not best first: %+v", res.Hits)
		}
	}
	// Seq 55 is past the last full chunk: found while pending, no topic.
	res = search("등대 호텔 워크숍", 5)
	if len(res.Hits) == 0 || res.Hits[0].Seq != 55 || res.Hits[0].TopicID != "" {
		t.Fatalf("korean pending: %+v", res.Hits)
	}
	// The topic route's search keeps working beside it.
	if r := h.do(http.MethodGet, "/v1/meetings/"+m.ID+"/topics?q=budget", key, nil); r.status != http.StatusOK {
		t.Fatalf("topics?q=: %d %s", r.status, r.body)
	}

	other := h.key("other")
	if r := h.do(http.MethodGet, "/v1/meetings/"+m.ID+"/search?q=lighthouse", other, nil); r.status != http.StatusNotFound {
		t.Fatalf("other tenant: %d %s", r.status, r.body)
	}
	for _, q := range []string{"", "q=", "q=+++", "q=x&k=0", "q=x&k=101", "q=x&k=abc", "q=%ff%fe"} {
		if r := h.do(http.MethodGet, "/v1/meetings/"+m.ID+"/search?"+q, key, nil); r.status != http.StatusBadRequest {
			t.Errorf("%q: %d %s", q, r.status, r.body)
		}
	}
	if r := h.do(http.MethodGet, "/v1/meetings/not-a-uuid/search?q=x", key, nil); r.status != http.StatusBadRequest && r.status != http.StatusNotFound {
		t.Errorf("bad id: %d %s", r.status, r.body)
	}
	if r := h.do(http.MethodGet, "/v1/meetings/"+m.ID+"/search?q=x&k=100", key, nil); r.status != http.StatusOK {
		t.Errorf("k=100: %d %s", r.status, r.body)
	}
}
