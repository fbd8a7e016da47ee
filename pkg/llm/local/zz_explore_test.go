package local_test

import (
	"context"
	"os"
	"testing"

	"github.com/mithub/mithub/pkg/llm/local"
)

func TestExploreSummaries(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	s := local.NewSummarizer()
	for _, m := range loadSplit(t, "val")[:12] {
		turns := meetingTurns(m)
		for _, tp := range m.Topics {
			sp := tp.Spans[0]
			sum, err := s.Summarize(context.Background(), turns[sp.Start:sp.End+1], nil)
			t.Logf("%s [%s]\n  title: %s\n  summary: %s\n  kw: %v err=%v", m.Name, tp.Topic, sum.Title, sum.Summary, sum.Keywords, err)
		}
	}
}
