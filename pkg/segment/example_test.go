package segment_test

import (
	"context"
	"fmt"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
)

func ExampleEmbedder() {
	e := segment.NewEmbedder(256)
	vs, err := e.Embed(context.Background(), []string{
		"리모컨 배터리 수명이 너무 짧아요",
		"배터리를 충전식으로 바꾸면 리모컨이 무거워집니다",
		"금요일 점심 메뉴는 피자로 정했어요",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	cos := func(a, b []float32) float64 {
		s := 0.0
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	fmt.Printf("dimension %d\n", len(vs[0]))
	fmt.Printf("battery vs battery: %.2f\n", cos(vs[0], vs[1]))
	fmt.Printf("battery vs lunch:   %.2f\n", cos(vs[0], vs[2]))
	_, err = e.Embed(context.Background(), []string{"{disfmarker} ..."})
	fmt.Println(err)
	// Output:
	// dimension 256
	// battery vs battery: 0.47
	// battery vs lunch:   0.00
	// embed text 0: local: text has no words
}

func ExampleSummarizer() {
	turns := []meetingctx.Turn{
		{Seq: 40, Text: "네, 그럼 오늘은 리모컨 배터리 문제부터 이야기해 볼게요."},
		{Seq: 41, Text: "음 지난번 사용자 조사에서 배터리가 너무 빨리 닳는다는 불만이 제일 많았어요."},
		{Seq: 42, Text: "충전식 배터리로 가면 충전 거치대도 따로 디자인해야 하지 않나요?"},
		{Seq: 43, Text: "네"},
		{Seq: 44, Text: "그럼 배터리는 충전식 배터리로 결정하고, 거치대 단가는 마케팅팀이랑 확인하죠."},
	}
	sum, err := segment.NewSummarizer().Summarize(context.Background(), turns, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Title)
	fmt.Println(sum.Summary)
	fmt.Println(sum.Keywords)
	// Output:
	// 충전식 배터리 · 거치대
	// 배터리는 충전식 배터리로 결정하고, 거치대 단가는 마케팅팀이랑 확인하죠.
	// [충전식 배터리 거치대 단가 리모컨 마케팅팀]
}

func ExampleSegmenter() {
	texts := []string{
		"The battery of the remote control runs out after two weeks , users hate replacing it .",
		"Mm-hmm .",
		"A rechargeable battery with a charging dock would fix the battery complaints .",
		"How long does charging the remote control battery take on the dock ?",
		"About two hours for a full battery charge on the dock .",
		"OK , let's move on to the marketing budget for the launch campaign .",
		"The marketing budget allows television advertising for the launch campaign .",
		"Yeah .",
		"Online advertising reaches younger customers for less money than television .",
		"So the campaign budget goes to online advertising , finance approves it next week .",
	}
	turns := make([]meetingctx.Turn, len(texts))
	for i, x := range texts {
		turns[i] = meetingctx.Turn{Seq: 100 + i, Text: x}
	}
	prev := &meetingctx.Topic{Title: "remote control · battery", StartSeq: 80, EndSeq: 99}
	// Short synthetic turns: a hand-set model and a short shortest topic.
	seg := segment.NewSegmenter(segment.SegmenterConfig{Model: testModel(true), MinTurns: 4, TailTurns: 1})
	out, err := seg.Segment(context.Background(), meetingctx.SegmentInput{Turns: turns, Previous: prev})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("previous topic continues to", out.ContinueTo)
	for _, s := range out.Segments {
		fmt.Printf("%d-%d %s\n", s.StartSeq, s.EndSeq, s.Title)
	}
	// Output:
	// previous topic continues to 104
	// 105-109 launch campaign · marketing budget · online advertising
}
