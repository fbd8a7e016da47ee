package eval

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
)

func TestBaselineSegmentations(t *testing.T) {
	if got, want := evenSplit(10, 3), []meetingctx.Topic{{StartSeq: 0, EndSeq: 2}, {StartSeq: 3, EndSeq: 5}, {StartSeq: 6, EndSeq: 9}}; !reflect.DeepEqual(got, want) {
		t.Errorf("evenSplit(10, 3) = %v", got)
	}
	if got := evenSplit(2, 5); len(got) != 2 || got[1].EndSeq != 1 {
		t.Errorf("evenSplit(2, 5) = %v", got)
	}
	if got := evenSplit(4, 0); len(got) != 1 || got[0].EndSeq != 3 {
		t.Errorf("evenSplit(4, 0) = %v", got)
	}
	if got, want := windows(60, 25), []meetingctx.Topic{{StartSeq: 0, EndSeq: 24}, {StartSeq: 25, EndSeq: 49}, {StartSeq: 50, EndSeq: 59}}; !reflect.DeepEqual(got, want) {
		t.Errorf("windows(60, 25) = %v", got)
	}
}

func TestScoreRecallAndMRR(t *testing.T) {
	m := map[string]Ret{"x": {Found: map[int]int{}}}
	rel := func(seq int) bool { return seq == 7 || seq == 9 }
	score(m, "x", []int{1, 2, 3, 4, 5, 6, 9, 7}, rel) // first relevant at rank 7
	score(m, "x", []int{7}, rel)                      // rank 1
	score(m, "x", nil, rel)                           // no hits
	score(m, "x", []int{1, 2}, rel)                   // none relevant
	r := m["x"]
	if r.Found[5] != 1 || r.Found[10] != 2 || r.Found[20] != 2 || r.NoHits != 1 {
		t.Errorf("found %v, no hits %d", r.Found, r.NoHits)
	}
	if want := 1.0/7 + 1; r.RRSum != want {
		t.Errorf("RR sum %v, want %v", r.RRSum, want)
	}
}

func TestTopSegmentsAndOverlap(t *testing.T) {
	m := &qmsum.Meeting{Turns: []qmsum.Turn{{Content: "hello"}, {Content: "the budget is big"}, {Content: "hiring"}, {Content: "more hiring plans"}}}
	segs := []meetingctx.Topic{{StartSeq: 0, EndSeq: 1}, {StartSeq: 2, EndSeq: 3}}
	top := topSegments(m, segs, "hiring plans", 1)
	if len(top) != 1 || top[0].StartSeq != 2 {
		t.Fatalf("top = %v", top)
	}
	if !overlaps(top, []qmsum.Span{{Start: 3, End: 5}}) || overlaps(top, []qmsum.Span{{Start: 0, End: 1}}) {
		t.Error("overlap wrong")
	}
	if got := topSegments(m, segs, "zebra", 3); len(got) != 0 {
		t.Errorf("no match gave %v", got)
	}
}

func TestSummaryAndMarkdown(t *testing.T) {
	mk := func(name string, q, found10 int, rr float64, pk float64) MeetingResult {
		r := MeetingResult{Name: name, Turns: 100, RefTopics: 4, Queries: q, Seg: map[string]Seg{}, Ret: map[string]Ret{}}
		for _, s := range segMethods {
			r.Seg[s] = Seg{Topics: 4, Pk: pk, TopicTop3: q}
		}
		for _, s := range retMethods {
			r.Ret[s] = Ret{Found: map[int]int{10: found10}, RRSum: rr}
		}
		return r
	}
	rep := Report{Meetings: []MeetingResult{mk("A", 2, 2, 1.5, 0.2), mk("B", 2, 0, 0, 0.4)}}
	rep.Overall = rep.summarize()
	o := rep.Overall
	if o.Queries != 4 || o.Retrieval[0].Recall[10] != 0.5 || o.Retrieval[0].MRR != 1.5/4 || o.Segmentation[0].Pk < 0.2999 || o.Segmentation[0].Pk > 0.3001 || o.Segmentation[0].TopicTop3 != 1 {
		t.Fatalf("overall %+v", o)
	}
	var b bytes.Buffer
	rep.Markdown(&b)
	for _, want := range []string{"| A | 100 | 4 | 4 |", "| mithub | 4.0 | 0.300 |", "| BM25 over turns |", "| random turns |", "| windows of 120 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
}
