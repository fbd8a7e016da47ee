package local_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mithub/mithub/pkg/llm/local"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
)

// utterances are utterance-sized texts in both languages.
var utterances = []string{
	"So the idea is that the remote control has a rechargeable battery and a small charging dock .",
	"I think we should ask marketing what the younger users expect from the look and feel .",
	"Um , yeah , the {disfmarker} the budget is twelve euro fifty per unit , so that rules out the LCD screen .",
	"Mm-hmm .",
	"다음 주까지 디자인팀에서 충전 거치대 시안을 만들어 주기로 했습니다.",
	"마케팅 예산은 온라인 광고 위주로 잡고 재무팀 승인을 받아야 해요.",
	"API 배포 일정은 QA 끝나고 다음 스프린트로 미루는 게 좋겠습니다.",
	"Yeah , and the speech recognition would need a microphone in the remote , which costs extra .",
}

func BenchmarkEmbed(b *testing.B) {
	for _, dim := range []int{256, 1024} {
		b.Run(fmt.Sprint("dim=", dim), func(b *testing.B) {
			e := local.NewEmbedder(dim)
			ctx := context.Background()
			i := 0
			for b.Loop() {
				if _, err := e.Embed(ctx, utterances[i%len(utterances):i%len(utterances)+1]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// benchMeeting loads a validation meeting for benchmarks.
func benchMeeting(b *testing.B) []meetingctx.Turn {
	b.Helper()
	dir, err := qmsum.DataDir()
	if err != nil {
		b.Fatal(err)
	}
	m, err := qmsum.Load(filepath.Join(dir, "val", "Bed002.json"))
	if err != nil {
		b.Fatal(err)
	}
	return meetingTurns(m)
}

func BenchmarkSegmentChunk(b *testing.B) {
	turns := benchMeeting(b)
	prev := meetingctx.Topic{StartSeq: 91, EndSeq: 199, StartMS: turns[91].StartMS, EndMS: turns[199].EndMS}
	in := meetingctx.SegmentInput{Turns: turns[200:225], Previous: &prev, PreviousTurns: turns[190:200]}
	seg := local.NewSegmenter(local.SegmenterConfig{})
	ctx := context.Background()
	for b.Loop() {
		if _, err := seg.Segment(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSummarize(b *testing.B) {
	turns := benchMeeting(b)
	s := local.NewSummarizer()
	ctx := context.Background()
	for _, n := range []int{25, 200} {
		b.Run(fmt.Sprint("turns=", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Summarize(ctx, turns[91:91+n], nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
