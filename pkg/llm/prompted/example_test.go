package prompted_test

import (
	"context"
	"fmt"

	"github.com/mithub/mithub/pkg/llm/prompted"
	"github.com/mithub/mithub/pkg/meetingctx"
)

func ExampleSegmenter() {
	// A model that answers in a code fence, with a cut-off second topic.
	chat := answer("```json\n" + `{"continue_to": -1, "topics": [{"start_seq": 0, "end_seq": 1, "title": "예산", "summary": "예산을 10% 줄이기로 했다."}, {"start_seq": 2, "end_`)
	seg := prompted.NewSegmenter(chat, prompted.Config{})
	out, err := seg.Segment(context.Background(), meetingctx.SegmentInput{Turns: []meetingctx.Turn{
		{Seq: 0, SpeakerName: "민지", Text: "예산부터 볼까요?"},
		{Seq: 1, SpeakerName: "Tom", Text: "10% 줄이죠."},
		{Seq: 2, SpeakerName: "민지", Text: "다음은 출시 일정입니다."},
	}})
	fmt.Println(err)
	for _, s := range out.Segments {
		fmt.Printf("%d-%d %s: %s\n", s.StartSeq, s.EndSeq, s.Title, s.Summary)
	}
	// Output:
	// <nil>
	// 0-1 예산: 예산을 10% 줄이기로 했다.
	// 2-2 Topic_2_2: 다음은 출시 일정입니다.
}
