package agendaeval

import (
	"testing"

	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/qmsum"
)

// An item's title is scored against the annotated topic it overlaps most:
// a title naming a topic it barely touches does not count, nor does a
// list of key terms, and items outside every topic are not scored.
func TestTitledScoresTheTopicAnItemOverlapsMost(t *testing.T) {
	topics := []qmsum.Topic{
		{Topic: "Budget review", Spans: []qmsum.Span{{Start: 0, End: 9}}},
		{Topic: "Prototype presentation", Spans: []qmsum.Span{{Start: 10, End: 19}}},
	}
	spoken := make([]int, 30)
	for i := range spoken {
		spoken[i] = i
	}
	agenda := []prdoc.AgendaItem{
		{Title: "Budget figures", StartSeq: 0, EndSeq: 7},             // names its topic
		{Title: "Budget questions", StartSeq: 8, EndSeq: 15},          // mostly in the prototype topic
		{Title: "prototype · presentation", StartSeq: 16, EndSeq: 19}, // a term list
		{Title: "Prototype presentation", StartSeq: 22, EndSeq: 29},   // outside every topic
	}
	placed, hits := titled(topics, agenda, spoken)
	if placed != 3 || hits != 1 {
		t.Fatalf("placed %d, titled %d; want 3 and 1", placed, hits)
	}
}
