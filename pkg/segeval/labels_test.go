package segeval_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/pkg/segeval"
)

func TestReferenceLabels(t *testing.T) {
	m := &qmsum.Meeting{
		Turns: make([]qmsum.Turn, 10),
		Topics: []qmsum.Topic{
			{Topic: "budget", Spans: []qmsum.Span{{Start: 2, End: 3}, {Start: 7, End: 8}}},
			{Topic: "design", Spans: []qmsum.Span{{Start: 3, End: 6}}},
		},
	}
	// Turns 0-1 precede every span and take the first label (0); turn 3
	// is in both topics and keeps the first; turn 9 follows topic 0.
	want := []int{0, 0, 0, 0, 1, 1, 1, 0, 0, 0}
	if got := segeval.ReferenceLabels(m); !reflect.DeepEqual(got, want) {
		t.Errorf("labels = %v, want %v", got, want)
	}
}

func TestReferenceLabelsFillsGaps(t *testing.T) {
	tests := []struct {
		name   string
		topics []qmsum.Topic
		want   []int
	}{
		{name: "no topics", want: []int{0, 0, 0, 0, 0}},
		{
			name: "gap between spans takes the earlier label",
			topics: []qmsum.Topic{
				{Spans: []qmsum.Span{{Start: 0, End: 1}}},
				{Spans: []qmsum.Span{{Start: 4, End: 4}}},
			},
			want: []int{0, 0, 0, 0, 1},
		},
		{
			name: "leading gap takes the next label",
			topics: []qmsum.Topic{
				{Spans: []qmsum.Span{{Start: 3, End: 3}}},
				{Spans: []qmsum.Span{{Start: 2, End: 2}}},
			},
			want: []int{1, 1, 1, 0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &qmsum.Meeting{Turns: make([]qmsum.Turn, 5), Topics: tt.topics}
			if got := segeval.ReferenceLabels(m); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("labels = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHypothesisLabels(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		topics []meetingctx.Topic
		want   []int
	}{
		{name: "no topics", n: 3, want: []int{0, 0, 0}},
		{
			name:   "contiguous",
			n:      6,
			topics: []meetingctx.Topic{{StartSeq: 0, EndSeq: 1}, {StartSeq: 2, EndSeq: 5}},
			want:   []int{0, 0, 1, 1, 1, 1},
		},
		{
			name:   "gap and overlap",
			n:      7,
			topics: []meetingctx.Topic{{StartSeq: 1, EndSeq: 2}, {StartSeq: 2, EndSeq: 3}, {StartSeq: 5, EndSeq: 9}},
			want:   []int{0, 0, 0, 1, 1, 2, 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := segeval.HypothesisLabels(tt.n, tt.topics); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("labels = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReferenceLabelsBed002(t *testing.T) {
	dir := qmsumtest.Dir(t)
	m, err := qmsum.Load(filepath.Join(dir, "val", "Bed002.json"))
	if err != nil {
		t.Fatal(err)
	}
	ref := segeval.ReferenceLabels(m)
	// Spans 0-90, 91-288, 291-351, 352-415, 417-532; 289-290 and 416 are
	// in no span and continue the topic before them.
	for _, c := range []struct{ turn, want int }{{0, 0}, {90, 0}, {91, 1}, {290, 1}, {291, 2}, {416, 3}, {417, 4}, {532, 4}} {
		if ref[c.turn] != c.want {
			t.Errorf("turn %d label %d, want %d", c.turn, ref[c.turn], c.want)
		}
	}
	if got := segeval.Segments(ref); got != 5 {
		t.Errorf("%d segments, want 5", got)
	}
	// 533 turns in 5 segments: half the mean length 53.3 rounds to 53.
	if got := segeval.DefaultK(ref); got != 53 {
		t.Errorf("DefaultK = %d, want 53", got)
	}
	if pk := segeval.Pk(ref, ref, 53); pk != 0 {
		t.Errorf("Pk(ref, ref) = %v", pk)
	}
}
