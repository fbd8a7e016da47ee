package segment_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/pkg/segment"
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
			e := segment.NewEmbedder(dim)
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
	dir := qmsumtest.Dir(b)
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
	seg := segment.NewSegmenter(segment.SegmenterConfig{})
	ctx := context.Background()
	for b.Loop() {
		if _, err := seg.Segment(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSegmentChunkP99 replays Bed002 in 25-turn chunks as the
// engine does (the last topic and its last 10 turns beside each chunk)
// and reports the 99th percentile of one chunk's segmentation, titles and
// summaries included (goal: under 20 ms).
func BenchmarkSegmentChunkP99(b *testing.B) {
	turns := benchMeeting(b)
	seg := segment.NewSegmenter(segment.SegmenterConfig{})
	timed := &timedSegmenter{seg: seg}
	ctx := context.Background()
	for b.Loop() {
		if _, err := replay(ctx, timed, turns); err != nil {
			b.Fatal(err)
		}
	}
	d := slices.Clone(timed.took)
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)*99/100])/1e6, "p99-ms/chunk")
	b.ReportMetric(float64(d[len(d)/2])/1e6, "p50-ms/chunk")
}

// timedSegmenter records how long each Segment call took.
type timedSegmenter struct {
	seg  meetingctx.Segmenter
	took []time.Duration
}

func (t *timedSegmenter) Segment(ctx context.Context, in meetingctx.SegmentInput) (meetingctx.SegmentOutput, error) {
	start := time.Now()
	out, err := t.seg.Segment(ctx, in)
	t.took = append(t.took, time.Since(start))
	return out, err
}

// BenchmarkSegmentMeeting2000 is the end-of-meeting pass over 2,000 turns
// of QMSum validation meetings in a row (goal: under 1 s).
func BenchmarkSegmentMeeting2000(b *testing.B) {
	var turns []meetingctx.Turn
	for _, m := range loadSplit(b, "val") {
		for _, t := range meetingTurns(m) {
			if len(turns) == 2000 {
				break
			}
			t.Seq = len(turns)
			turns = append(turns, t)
		}
	}
	if len(turns) < 2000 {
		b.Fatalf("only %d validation turns", len(turns))
	}
	seg := segment.NewSegmenter(segment.SegmenterConfig{})
	ctx := context.Background()
	for b.Loop() {
		segs, err := seg.SegmentMeeting(ctx, turns)
		if err != nil || len(segs) == 0 {
			b.Fatal(segs, err)
		}
	}
}

func BenchmarkSummarize(b *testing.B) {
	turns := benchMeeting(b)
	s := segment.NewSummarizer()
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
