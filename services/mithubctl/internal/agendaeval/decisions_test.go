package agendaeval

import (
	"slices"
	"testing"

	"github.com/mithub/mithub/pkg/qmsum"
)

func TestIsDecisionQuery(t *testing.T) {
	tests := []struct {
		give string
		want bool
	}{
		{"What did the group decide on the battery?", true},
		{"Summarize the decision discussion about remote concepts.", true},
		{"What was agreed upon on sample transcripts?", true},
		{"What was concluded on semantic specification?", true},
		{"Why did Marketing disagree with the Project Manager?", false},
		{"What did the professor say about the microphones?", false},
	}
	for _, tt := range tests {
		if got := IsDecisionQuery(tt.give); got != tt.want {
			t.Errorf("IsDecisionQuery(%q) = %v, want %v", tt.give, got, tt.want)
		}
	}
}

// A query is recalled when a decision's seq, mapped through the spoken
// turns, falls in one of its spans.
func TestScoreMapsSeqsThroughSpokenTurns(t *testing.T) {
	spoken := []int{0, 1, 3, 4, 6, 7} // turns 2 and 5 are empty
	queries := []qmsum.SpecificQuery{
		{Query: "a", Spans: []qmsum.Span{{Start: 2, End: 3}}},
		{Query: "b", Spans: []qmsum.Span{{Start: 5, End: 5}}},
		{Query: "c", Spans: []qmsum.Span{{Start: 0, End: 0}, {Start: 7, End: 7}}},
	}
	got := score("x", []int{2, 5}, queries, spoken) // turns 3 and 7
	if got.Hits != 2 || got.Queries != 3 || got.Items != 2 {
		t.Errorf("score = %+v, want 2 hits of 3 queries, 2 items", got)
	}
	if e := evenSeqs(10, 3); !slices.Equal(e, []int{1, 5, 8}) {
		t.Errorf("evenSeqs(10, 3) = %v", e)
	}
}
