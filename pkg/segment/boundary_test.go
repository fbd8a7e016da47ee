package segment_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/segment"
)

// synthMeeting builds a meeting of subjects, each a run of turns that
// cycle through its sentences, spoken by speakers in turn, with an
// annotated topic per subject.
func synthMeeting(name string, speakers []string, turnsPer int, subjects ...[]string) *qmsum.Meeting {
	m := &qmsum.Meeting{Name: name}
	for si, sub := range subjects {
		start := len(m.Turns)
		for i := range turnsPer {
			m.Turns = append(m.Turns, qmsum.Turn{Speaker: speakers[(start+i)%len(speakers)], Content: sub[i%len(sub)]})
		}
		m.Topics = append(m.Topics, qmsum.Topic{Topic: fmt.Sprint("subject ", si), Spans: []qmsum.Span{{Start: start, End: len(m.Turns) - 1}}})
	}
	return m
}

func trainSmall(t *testing.T, reversed bool) []byte {
	t.Helper()
	sp := []string{"A", "B", "C"}
	var infos []segment.MeetingInfo
	for _, m := range []*qmsum.Meeting{
		synthMeeting("m1", sp, 30, batteryTurns, budgetTurns, batteryTurns),
		synthMeeting("m2", sp, 25, koBatteryTurns, koBudgetTurns),
		synthMeeting("m3", sp[:2], 35, budgetTurns, koBatteryTurns, batteryTurns, koBudgetTurns),
	} {
		infos = append(infos, segment.PrepareMeeting(m))
	}
	if reversed {
		slices.Reverse(infos)
	}
	model, err := segment.TrainBoundaryModel(infos)
	if err != nil {
		t.Fatal(err)
	}
	b, err := model.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTrainBoundaryModelDeterministic: `make train` must rebuild the same
// bytes from the same meetings, in whatever order they come.
func TestTrainBoundaryModelDeterministic(t *testing.T) {
	a, b := trainSmall(t, false), trainSmall(t, true)
	if !bytes.Equal(a, b) {
		t.Fatalf("two trainings on the same meetings differ:\n%s\n%s", a, b)
	}
	m, err := segment.ParseBoundaryModel(a)
	if err != nil {
		t.Fatalf("trained model does not parse: %v\n%s", err, a)
	}
	// The synthetic subjects change vocabulary at every boundary, so the
	// cohesion features must carry weight.
	w := map[string]float64{}
	for j, f := range m.Features {
		w[f] = m.Weights[j]
	}
	if w["dissim10"] <= 0 {
		t.Errorf("weight of dissim10 = %v, want > 0 on meetings whose topics change vocabulary", w["dissim10"])
	}
}

func TestTrainBoundaryModelErrors(t *testing.T) {
	if _, err := segment.TrainBoundaryModel(nil); err == nil {
		t.Error("no meetings: no error")
	}
	one := synthMeeting("one", []string{"A", "B"}, 20, batteryTurns) // no boundary at all
	if _, err := segment.TrainBoundaryModel([]segment.MeetingInfo{segment.PrepareMeeting(one)}); err == nil {
		t.Error("no annotated boundary: no error")
	}
}

func TestShippedBoundaryModel(t *testing.T) {
	m, err := segment.DefaultBoundaryModel()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("model/boundary.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 5<<20 {
		t.Errorf("model/boundary.json has %d bytes, want under 5 MB", len(b))
	}
	if out, err := m.MarshalIndent(); err != nil || !bytes.Equal(out, b) {
		t.Errorf("model/boundary.json is not in MarshalIndent's form (err %v); rebuild it with make train", err)
	}
	for _, bad := range []string{
		`{`,
		`{"features":["depth5"],"mean":[0],"scale":[1],"weights":[1],"threshold":0.5,"min_turns":5,"min_words":300,"topic_words":1000}`,
		string(bytes.Replace(b, []byte(`"min_turns": `), []byte(`"min_turns": -`), 1)),
		string(bytes.Replace(b, []byte(`"topic_words": `), []byte(`"topic_words": -`), 1)),
	} {
		if _, err := segment.ParseBoundaryModel([]byte(bad)); err == nil {
			t.Errorf("ParseBoundaryModel(%.60q) accepted a broken model", bad)
		}
	}
}

// meetingOf numbers texts as turns 0.. spoken by speakers in turn.
func meetingOf(speakers []string, texts ...[]string) []meetingctx.Turn {
	var turns []meetingctx.Turn
	for _, g := range texts {
		for _, x := range g {
			sp := speakers[len(turns)%len(speakers)]
			turns = append(turns, meetingctx.Turn{Seq: len(turns), SpeakerID: sp, SpeakerName: sp, Text: x})
		}
	}
	return turns
}

// checkSegments checks that segments cover turns exactly once, in order.
func checkSegments(t *testing.T, turns []meetingctx.Turn, segs []meetingctx.Segment) {
	t.Helper()
	next := turns[0].Seq
	for _, s := range segs {
		if s.StartSeq != next || s.EndSeq < s.StartSeq {
			t.Fatalf("segment %d-%d, want one starting at %d", s.StartSeq, s.EndSeq, next)
		}
		next = s.EndSeq + 1
	}
	if last := turns[len(turns)-1].Seq; next != last+1 {
		t.Fatalf("segments cover up to %d, want %d", next-1, last)
	}
}

// repeat returns n turns cycling through texts.
func repeat(n int, texts []string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = texts[i%len(texts)]
	}
	return out
}

func TestSegmentMeetingEdgeCases(t *testing.T) {
	seg := segment.NewSegmenter(segment.SegmenterConfig{})
	minTurns := seg.Config().MinTurns
	tests := []struct {
		name    string
		turns   []meetingctx.Turn
		maxSegs int
	}{
		{"three turns", meetingOf([]string{"A", "B"}, batteryTurns[:3]), 1},
		{"one speaker", meetingOf([]string{"A"}, repeat(60, batteryTurns), repeat(60, budgetTurns)), 120 / minTurns},
		{"korean only", meetingOf([]string{"가", "나", "다"}, repeat(60, koBatteryTurns), repeat(60, koBudgetTurns)), 120 / minTurns},
		{"fillers only", meetingOf([]string{"A", "B"}, repeat(40, []string{"Mm-hmm .", "네", "", "Yeah ."})), 1},
		{"one turn", meetingOf([]string{"A"}, batteryTurns[:1]), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			segs, err := seg.SegmentMeeting(context.Background(), tt.turns)
			if err != nil {
				t.Fatal(err)
			}
			checkSegments(t, tt.turns, segs)
			if len(segs) > tt.maxSegs {
				t.Errorf("%d segments, want at most %d (topics of at least %d turns)", len(segs), tt.maxSegs, minTurns)
			}
			for i := 1; i < len(segs); i++ {
				if n := segs[i].StartSeq - segs[i-1].StartSeq; n < minTurns {
					t.Errorf("topic %d has %d turns, want at least %d", i-1, n, minTurns)
				}
			}
		})
	}
	if segs, err := seg.SegmentMeeting(context.Background(), nil); err != nil || len(segs) != 0 {
		t.Errorf("no turns: %v, %v; want no segments and no error", segs, err)
	}
	gap := meetingOf([]string{"A"}, batteryTurns[:4])
	gap[2].Seq = 7
	if _, err := seg.SegmentMeeting(context.Background(), gap); err == nil {
		t.Error("seqs with a hole: no error")
	}
}

// meetingBySubject numbers the subjects' texts as turns 0..; subject k is
// a conversation between speakers k and k+1 (mod 4): who talks changes
// with the topic, as in a real meeting.
func meetingBySubject(subs ...[]string) []meetingctx.Turn {
	names := []string{"Alice", "Bob", "Chul-soo", "Dana"}
	var turns []meetingctx.Turn
	for k, sub := range subs {
		for i, x := range sub {
			sp := names[(k+i%2)%len(names)]
			turns = append(turns, meetingctx.Turn{Seq: len(turns), SpeakerID: sp, SpeakerName: sp, Text: x})
		}
	}
	return turns
}

// subject is one topic of a synthetic meeting: the chair's opening turn,
// then n-1 turns cycling through body.
func subject(n int, opener string, body []string) []string {
	return append([]string{opener}, repeat(n-1, body[1:])...)
}

// TestSegmentMeetingFindsSubjects: a meeting of clearly different subjects,
// each opened by the chair as in a real meeting, in English and in
// Korean, gets topics only at changes of subject, at least one of them,
// and no more topics than the length prior allows.
func TestSegmentMeetingFindsSubjects(t *testing.T) {
	seg := segment.NewSegmenter(segment.SegmenterConfig{})
	const per = 80
	en := [][]string{
		subject(per, "OK , so first the battery of the remote control , what do users complain about and what would a rechargeable battery with a dock cost us ?", batteryTurns),
		subject(per, "Let's move on to the next item , the marketing budget for the launch campaign , where television and online advertising compete for the money .", budgetTurns),
		subject(per, "Now the next topic , back to the battery indicator and the charging dock design , can you present what you found about lithium cells ?", batteryTurns),
	}
	ko := [][]string{
		subject(per, "그럼 먼저 리모컨 배터리 문제부터 보죠. 사용자 불만이 뭐고 충전식 배터리와 거치대는 비용이 얼마나 드나요?", koBatteryTurns),
		subject(per, "다음 안건으로 넘어가서 출시 캠페인 마케팅 예산을 보겠습니다. 텔레비전 광고와 온라인 광고 중 어디에 쓸지 정해야 합니다.", koBudgetTurns),
		subject(per, "이제 다음 주제로 배터리 표시등과 충전 거치대 디자인을 다시 보죠. 리튬 셀 조사 결과를 발표해 주시겠어요?", koBatteryTurns),
	}
	for _, tt := range []struct {
		name string
		subs [][]string
	}{{"english", en}, {"korean", ko}} {
		t.Run(tt.name, func(t *testing.T) {
			turns := meetingBySubject(tt.subs...)
			segs, err := seg.SegmentMeeting(context.Background(), turns)
			if err != nil {
				t.Fatal(err)
			}
			checkSegments(t, turns, segs)
			var starts []int
			for _, s := range segs {
				starts = append(starts, s.StartSeq)
			}
			// Every topic opens at a change of subject, and at least one
			// of the two changes is found (the model weighs speakers and
			// turn lengths too, which are uniform here).
			found := 0
			for _, s := range starts[1:] {
				if d := s % per; d > 3 && d < per-3 {
					t.Errorf("topics start at %v: %d is no change of subject", starts, s)
				} else {
					found++
				}
			}
			if found == 0 {
				t.Errorf("topics start at %v, want one within 3 turns of %d or %d", starts, per, 2*per)
			}
			words := segment.MeetingWords(turns)
			if max := int(math.Round(float64(words) / float64(seg.Config().TopicWords))); len(segs) > max {
				t.Errorf("%d topics in %d words, want at most %d", len(segs), words, max)
			}
		})
	}
}

// TestSegmentMeetingLong: in a 5,000-turn meeting of 50 opened subjects,
// the topics open at changes of subject and many changes are found.
func TestSegmentMeetingLong(t *testing.T) {
	seg := segment.NewSegmenter(segment.SegmenterConfig{})
	subs := []struct {
		opener string
		body   []string
	}{
		{"Let's move on to the next item , the battery of the remote control and the charging dock , what did you find ?", batteryTurns},
		{"OK , next topic , the marketing budget for the launch campaign , television or online advertising ?", budgetTurns},
		{"다음 안건으로 넘어가서 리모컨 배터리와 충전 거치대 문제를 보죠. 조사 결과를 발표해 주시겠어요?", koBatteryTurns},
		{"이제 다음 주제로 출시 캠페인 마케팅 예산을 보겠습니다. 텔레비전 광고와 온라인 광고 중 어디에 쓸까요?", koBudgetTurns},
	}
	var groups [][]string
	for i := range 50 {
		s := subs[i%len(subs)]
		groups = append(groups, subject(100, s.opener, s.body))
	}
	turns := meetingBySubject(groups...)
	segs, err := seg.SegmentMeeting(context.Background(), turns)
	if err != nil {
		t.Fatal(err)
	}
	checkSegments(t, turns, segs)
	found := 0
	for _, s := range segs {
		if d := s.StartSeq % 100; d <= 3 || d >= 97 {
			found++
		}
	}
	if found < 20 || found < len(segs)*9/10 {
		t.Errorf("%d topics, %d of them within 3 turns of one of the 50 subjects' starts; want at least 20 found and 90%% of the topics there", len(segs), found)
	}
}
