package httpapi_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

type transcriptRow struct {
	Seq         int    `json:"seq"`
	SegmentID   string `json:"segment_id"`
	SpeakerName string `json:"speaker_name"`
	Text        string `json:"text"`
	StartMS     int64  `json:"start_ms"`
	EndMS       int64  `json:"end_ms"`
	Tokens      int    `json:"tokens"`
	Source      string `json:"source"`
}

type transcriptPage struct {
	MeetingID    string          `json:"meeting_id"`
	Rows         []transcriptRow `json:"rows"`
	NextAfterSeq int             `json:"next_after_seq"`
	More         bool            `json:"more"`
}

func seqsOf(rows []transcriptRow) []int {
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = r.Seq
	}
	return out
}

func TestTranscriptPages(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	h.post(key, m.ID, utterances("seg", 0, 7))

	var got []transcriptRow
	after, pages := -1, 0
	for {
		r := h.do(http.MethodGet, "/v1/meetings/"+m.ID+"/transcript?limit=3&after_seq="+strconv.Itoa(after), key, nil)
		if r.status != http.StatusOK {
			t.Fatalf("page after %d: %d %s", after, r.status, r.body)
		}
		var p transcriptPage
		r.decode(t, &p)
		pages++
		got = append(got, p.Rows...)
		if p.MeetingID != m.ID || len(p.Rows) > 3 {
			t.Fatalf("page %+v", p)
		}
		after = p.NextAfterSeq
		if !p.More {
			break
		}
	}
	if pages != 3 || len(got) != 7 || after != 6 {
		t.Fatalf("%d pages, %d rows, last %d", pages, len(got), after)
	}
	for i, row := range got {
		want := utterances("seg", i, 1)[0]
		if row.Seq != i || row.SegmentID != want.SegmentID || row.Text != want.Text || row.SpeakerName != want.SpeakerName ||
			row.StartMS != want.StartMS || row.Tokens == 0 || row.Source != "api" {
			t.Fatalf("row %d = %+v, want %+v", i, row, want)
		}
	}
	if !strings.Contains(got[0].Text, "로드맵") || got[2].SpeakerName != "김민수" {
		t.Fatalf("Korean text did not round-trip: %+v", got[0])
	}

	// Past the end: an empty page that keeps the cursor.
	var p transcriptPage
	h.do(http.MethodGet, "/v1/meetings/"+m.ID+"/transcript?after_seq=6", key, nil).decode(t, &p)
	if len(p.Rows) != 0 || p.More || p.NextAfterSeq != 6 {
		t.Fatalf("page past the end: %+v", p)
	}
	// Default limit covers the meeting.
	h.do(http.MethodGet, "/v1/meetings/"+m.ID+"/transcript", key, nil).decode(t, &p)
	if len(p.Rows) != 7 || p.More {
		t.Fatalf("default page: %d rows, more %v", len(p.Rows), p.More)
	}
}

func TestTranscriptRejectsBadInput(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key, other := h.key("acme"), h.key("other")
	m := h.createMeeting(key)
	h.post(key, m.ID, utterances("seg", 0, 2))
	base := "/v1/meetings/" + m.ID + "/transcript"
	tests := []struct {
		give       string
		key        string
		wantStatus int
	}{
		{base + "?after_seq=-2", key, http.StatusBadRequest},
		{base + "?after_seq=x", key, http.StatusBadRequest},
		{base + "?after_seq=99999999999", key, http.StatusBadRequest},
		{base + "?limit=0", key, http.StatusBadRequest},
		{base + "?limit=1001", key, http.StatusBadRequest},
		{base + "?limit=1e3", key, http.StatusBadRequest},
		{"/v1/meetings/not-a-uuid/transcript", key, http.StatusBadRequest},
		{"/v1/meetings/00000000-0000-0000-0000-000000000000/transcript", key, http.StatusNotFound},
		{base, other, http.StatusNotFound},
		{base, "", http.StatusUnauthorized},
		{base + "?after_seq=2147483647&limit=1000", key, http.StatusOK},
	}
	for _, tt := range tests {
		r := h.do(http.MethodGet, tt.give, tt.key, nil)
		if r.status != tt.wantStatus {
			t.Errorf("GET %s: %d %s, want %d", tt.give, r.status, r.body, tt.wantStatus)
		}
		checkClientError(t, tt.give, r)
	}
	// Another tenant's 404 leaks nothing of the meeting.
	if r := h.do(http.MethodGet, base, other, nil); strings.Contains(string(r.body), "로드맵") {
		t.Fatalf("other tenant saw the transcript: %s", r.body)
	}
}
