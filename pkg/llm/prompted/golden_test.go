package prompted_test

import (
	"context"
	"testing"

	"github.com/mithub/mithub/pkg/internal/golden"
	"github.com/mithub/mithub/pkg/llm/prompted"
	"github.com/mithub/mithub/pkg/meetingctx"
)

// The segmentation and summary prompts are pinned: a change to them shows
// up as a diff of testdata/prompts to review.
func TestPromptsGolden(t *testing.T) {
	for _, tt := range []struct {
		name     string
		previous bool
	}{{"segment_initial", false}, {"segment_continuing", true}} {
		t.Run(tt.name, func(t *testing.T) {
			chat := answer(`{}`)
			prompted.NewSegmenter(chat, prompted.Config{}).Segment(context.Background(), input(tt.previous))
			golden.Check(t, "testdata/prompts/"+tt.name+".txt", golden.Prompt(chat.requests()[0]))
		})
	}
	t.Run("summarize", func(t *testing.T) {
		chat := answer(`{"title": "예산", "summary": "광고비를 줄였다."}`)
		hints := []meetingctx.Topic{{Title: "마케팅 예산", Summary: "광고비 논의"}}
		if _, err := prompted.NewSummarizer(chat, prompted.Config{}).Summarize(context.Background(), chunk()[:5], hints); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "testdata/prompts/summarize.txt", golden.Prompt(chat.requests()[0]))
	})
}
