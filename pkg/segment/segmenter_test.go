package segment_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
)

// Two English subjects, a few turns each, with backchannels.
var (
	batteryTurns = []string{
		"The battery of the remote control runs out after two weeks , users hate replacing the battery .",
		"Mm-hmm .",
		"A rechargeable battery with a charging dock would fix the battery complaints .",
		"The charging dock could sit next to the television , the remote control charges overnight .",
		"Yeah .",
		"Lithium battery cells cost more , but a rechargeable battery lasts for years .",
		"How long does charging the remote control battery take on the dock ?",
		"About two hours for a full battery charge on the dock .",
		"OK .",
		"Then the remote control battery indicator should blink when the battery is low .",
	}
	budgetTurns = []string{
		"Let's move on to the marketing budget for the product launch campaign .",
		"The marketing budget allows television advertising in three countries for the launch campaign .",
		"Mm-hmm .",
		"Television advertising is expensive , online advertising reaches younger customers for less money .",
		"The campaign budget should favour online advertising and social media influencers .",
		"Yeah .",
		"Influencers on social media cost about ten thousand euros per campaign post .",
		"Marketing wants the launch campaign budget approved by finance before March .",
		"Finance will review the advertising budget and the campaign plan next week .",
		"OK , the campaign budget goes to finance with the advertising plan .",
	}
	koBatteryTurns = []string{
		"리모컨 배터리가 이 주 만에 닳아서 사용자들이 배터리 교체를 싫어합니다.",
		"네",
		"충전식 배터리와 충전 거치대를 넣으면 배터리 불만이 해결될 것 같아요.",
		"충전 거치대는 텔레비전 옆에 두고 리모컨을 밤새 충전하면 됩니다.",
		"음",
		"리튬 배터리 셀은 비싸지만 충전식 배터리는 몇 년 동안 쓸 수 있습니다.",
		"거치대에서 리모컨 배터리를 충전하는 데 시간이 얼마나 걸리나요?",
		"배터리 완충까지 거치대에서 두 시간 정도 걸립니다.",
		"네",
		"그럼 배터리가 부족하면 리모컨 배터리 표시등이 깜빡이게 하죠.",
	}
	koBudgetTurns = []string{
		"다음 안건으로 넘어가서 출시 캠페인 마케팅 예산을 보겠습니다.",
		"마케팅 예산으로 세 나라에서 출시 캠페인 텔레비전 광고가 가능합니다.",
		"네",
		"텔레비전 광고는 비싸고 온라인 광고가 젊은 고객에게 더 저렴하게 도달합니다.",
		"캠페인 예산은 온라인 광고와 소셜 미디어 인플루언서 위주로 잡아야 합니다.",
		"음",
		"소셜 미디어 인플루언서는 캠페인 게시물 하나에 천만 원 정도 듭니다.",
		"마케팅팀은 출시 캠페인 예산을 삼월 전에 재무팀 승인을 받고 싶어 합니다.",
		"재무팀이 다음 주에 광고 예산과 캠페인 계획을 검토할 예정입니다.",
		"좋아요, 캠페인 예산은 광고 계획과 함께 재무팀으로 보내겠습니다.",
	}
)

// testConfig scales the defaults down to these short synthetic turns.
var testConfig = segment.SegmenterConfig{Model: testModel(true), MinTurns: 4, TailTurns: 1}

// testModel is a hand-set boundary model for short synthetic turns, whose
// tests check the chunking around the model rather than the trained
// weights: a topic starts where the vocabulary changes over the 5 turns
// around a gap, helped by a cue phrase when cues is set.
func testModel(cues bool) *segment.BoundaryModel {
	m, err := segment.DefaultBoundaryModel()
	if err != nil {
		panic(err)
	}
	for j, name := range m.Features {
		m.Mean[j], m.Scale[j], m.Weights[j] = 0, 1, 0
		switch {
		case name == "depth5":
			m.Weights[j] = 4
		case name == "cue" && cues:
			m.Weights[j] = 2
		}
	}
	m.Bias, m.Threshold, m.Smooth = -3, 0.5, 0
	return &m
}

// seqTurns numbers texts from seq, with times estimated by the segmenter.
func seqTurns(from int, texts ...[]string) []meetingctx.Turn {
	var turns []meetingctx.Turn
	for _, group := range texts {
		for _, x := range group {
			turns = append(turns, meetingctx.Turn{Seq: from + len(turns), Text: x})
		}
	}
	return turns
}

// checkCoverage checks that ContinueTo and the segments cover the chunk
// exactly once, in order.
func checkCoverage(t *testing.T, in meetingctx.SegmentInput, out meetingctx.SegmentOutput) {
	t.Helper()
	first, last := in.Turns[0].Seq, in.Turns[len(in.Turns)-1].Seq
	next := first
	if out.ContinueTo >= 0 {
		if in.Previous == nil || out.ContinueTo < first || out.ContinueTo > last {
			t.Fatalf("ContinueTo %d with previous %v, chunk %d-%d", out.ContinueTo, in.Previous != nil, first, last)
		}
		next = out.ContinueTo + 1
	}
	for _, s := range out.Segments {
		if s.StartSeq != next || s.EndSeq < s.StartSeq || s.EndSeq > last {
			t.Fatalf("segment %d-%d, want a start at %d within %d-%d", s.StartSeq, s.EndSeq, next, first, last)
		}
		if utf8.RuneCountInString(s.Summary) > segment.MaxSummaryRunes {
			t.Errorf("summary %q longer than %d", s.Summary, segment.MaxSummaryRunes)
		}
		next = s.EndSeq + 1
	}
	if next != last+1 {
		t.Fatalf("covered up to %d, want %d", next-1, last)
	}
}

// starts returns the seqs where new topics begin in out.
func starts(out meetingctx.SegmentOutput) []int {
	var s []int
	for _, seg := range out.Segments {
		s = append(s, seg.StartSeq)
	}
	return s
}

func TestSegmentFirstChunk(t *testing.T) {
	tests := []struct {
		name      string
		give      []meetingctx.Turn
		wantStart []int
		wantTitle []string // a keyword each segment's title has
	}{
		{
			name:      "english",
			give:      seqTurns(0, batteryTurns, budgetTurns),
			wantStart: []int{0, 10},
			wantTitle: []string{"battery", "budget"},
		},
		{
			name:      "korean",
			give:      seqTurns(0, koBatteryTurns, koBudgetTurns),
			wantStart: []int{0, 10},
			wantTitle: []string{"배터리", "예산"},
		},
		{
			name:      "one subject",
			give:      seqTurns(0, batteryTurns, batteryTurns[:5]),
			wantStart: []int{0},
			wantTitle: []string{"battery"},
		},
	}
	seg := segment.NewSegmenter(testConfig)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := meetingctx.SegmentInput{Turns: tt.give}
			out, err := seg.Segment(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			checkCoverage(t, in, out)
			if out.ContinueTo != -1 {
				t.Errorf("ContinueTo = %d without a previous topic", out.ContinueTo)
			}
			if got := starts(out); !reflect.DeepEqual(got, tt.wantStart) {
				t.Fatalf("topics start at %v, want %v", got, tt.wantStart)
			}
			for i, s := range out.Segments {
				t.Logf("%d-%d %q: %q %q", s.StartSeq, s.EndSeq, s.Title, s.Summary, s.Keywords)
				if !containsWord(s.Title, tt.wantTitle[i]) {
					t.Errorf("segment %d title %q, want it to mention %q", i, s.Title, tt.wantTitle[i])
				}
			}
		})
	}
}

func TestSegmentLexicalCohesionAlone(t *testing.T) {
	// A model that reads nothing but lexical cohesion: the boundary comes
	// from the change of vocabulary only.
	cfg := testConfig
	cfg.Model = testModel(false)
	tests := []struct {
		name string
		give []meetingctx.Turn
		want []int
	}{
		{name: "english", give: seqTurns(0, batteryTurns, budgetTurns[1:]), want: []int{0, 10}},
		{name: "korean", give: seqTurns(0, koBatteryTurns, koBudgetTurns[1:]), want: []int{0, 10}},
		{name: "one subject", give: seqTurns(0, batteryTurns, batteryTurns), want: []int{0}},
	}
	seg := segment.NewSegmenter(cfg)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := meetingctx.SegmentInput{Turns: tt.give}
			out, err := seg.Segment(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			checkCoverage(t, in, out)
			if got := starts(out); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("topics start at %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSegmentContinuesPreviousTopic(t *testing.T) {
	prevTurns := seqTurns(100, batteryTurns)
	prev := &meetingctx.Topic{Title: "battery · remote control", StartSeq: 95, EndSeq: 109}
	tests := []struct {
		name         string
		give         []meetingctx.Turn
		wantContinue int
		wantStart    []int
	}{
		{
			name:         "same subject",
			give:         seqTurns(110, batteryTurns[5:], batteryTurns[:8]),
			wantContinue: 122,
		},
		{
			name:         "new subject at the border",
			give:         seqTurns(110, budgetTurns, budgetTurns[1:6]),
			wantContinue: -1,
			wantStart:    []int{110},
		},
		{
			name:         "new subject inside",
			give:         seqTurns(110, batteryTurns[4:], budgetTurns),
			wantContinue: 115,
			wantStart:    []int{116},
		},
		{
			name:         "fillers only",
			give:         seqTurns(110, []string{"Mm-hmm .", "Yeah .", "", "{disfmarker}", "네", "음", "OK ."}),
			wantContinue: 116,
		},
	}
	seg := segment.NewSegmenter(testConfig)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := meetingctx.SegmentInput{Turns: tt.give, Previous: prev, PreviousTurns: prevTurns, Earlier: []meetingctx.Topic{*prev}}
			out, err := seg.Segment(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			checkCoverage(t, in, out)
			if out.ContinueTo != tt.wantContinue || !reflect.DeepEqual(starts(out), tt.wantStart) {
				t.Errorf("ContinueTo %d, starts %v; want %d, %v", out.ContinueTo, starts(out), tt.wantContinue, tt.wantStart)
			}
		})
	}
}

func TestSegmentMinimumTopicLength(t *testing.T) {
	// The previous topic opened two turns before the chunk: a change of
	// subject right after it would close a topic shorter than MinTopic.
	prevTurns := seqTurns(8, batteryTurns[:2])
	prev := &meetingctx.Topic{StartSeq: 8, EndSeq: 9}
	in := meetingctx.SegmentInput{Turns: seqTurns(10, budgetTurns, budgetTurns), Previous: prev, PreviousTurns: prevTurns}
	cfg := testConfig
	cfg.MinTurns = 40
	out, err := segment.NewSegmenter(cfg).Segment(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	checkCoverage(t, in, out)
	if out.ContinueTo != 29 {
		t.Errorf("ContinueTo = %d, starts %v; want the whole chunk to continue", out.ContinueTo, starts(out))
	}
}

func TestSegmentEmptyChunk(t *testing.T) {
	out, err := segment.NewSegmenter(segment.SegmenterConfig{}).Segment(context.Background(), meetingctx.SegmentInput{})
	if err != nil || out.ContinueTo != -1 || len(out.Segments) != 0 {
		t.Errorf("empty chunk: %+v, %v", out, err)
	}
}

func TestSegmentDeterministicAndConcurrent(t *testing.T) {
	seg := segment.NewSegmenter(testConfig)
	in := meetingctx.SegmentInput{Turns: seqTurns(0, batteryTurns, budgetTurns, koBatteryTurns)}
	want, err := seg.Segment(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				got, err := seg.Segment(context.Background(), in)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Error("Segment is not deterministic")
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestSegmentContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := segment.NewSegmenter(segment.SegmenterConfig{}).Segment(ctx, meetingctx.SegmentInput{Turns: seqTurns(0, batteryTurns)})
	if err == nil {
		t.Error("no error with a cancelled context")
	}
}

func containsWord(title, word string) bool {
	for i := 0; i+len(word) <= len(title); i++ {
		if title[i:i+len(word)] == word {
			return true
		}
	}
	return false
}
