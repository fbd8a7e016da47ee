package local_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/llm/local"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/segeval"
)

// Engine parameters the evaluation replays.
const (
	chunkTurns    = 25 // l1_update_turn_threshold
	previousTurns = 10 // SegmentInput.PreviousTurns cap
)

// loadSplit loads every QMSum meeting of a split ("train", "val").
func loadSplit(tb testing.TB, split string) []*qmsum.Meeting {
	tb.Helper()
	dir, err := qmsum.DataDir()
	if err != nil {
		tb.Fatal(err)
	}
	paths, err := filepath.Glob(filepath.Join(dir, split, "*.json"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("QMSum %s: %v (%d files)", split, err, len(paths))
	}
	meetings := make([]*qmsum.Meeting, 0, len(paths))
	for _, p := range paths {
		m, err := qmsum.Load(p)
		if err != nil {
			tb.Fatal(err)
		}
		meetings = append(meetings, m)
	}
	return meetings
}

// meetingTurns turns a QMSum meeting into context turns with seq = turn
// index and the replay's synthesized times; turns without text keep their
// index with empty text and no duration.
func meetingTurns(m *qmsum.Meeting) []meetingctx.Turn {
	utts := make(map[string]apiclient.Utterance)
	for _, u := range qmsum.Utterances(m, "m") {
		utts[u.SegmentID] = u
	}
	turns := make([]meetingctx.Turn, len(m.Turns))
	var at int64
	for i, t := range m.Turns {
		turns[i] = meetingctx.Turn{Seq: i, SpeakerName: t.Speaker, SpeakerID: qmsum.Slug(t.Speaker), StartMS: at, EndMS: at}
		if u, ok := utts[qmsum.SegmentID("m", i)]; ok {
			turns[i].Text, turns[i].StartMS, turns[i].EndMS = u.Text, u.StartMS, u.EndMS
			at = u.EndMS
		}
	}
	return turns
}

// replay feeds turns to seg in chunks like the engine's L1 runner: each
// chunk sees the last topic and its last turns, ContinueTo extends that
// topic, and the segments become new topics. It checks that every turn
// ends up in exactly one topic.
func replay(ctx context.Context, seg meetingctx.Segmenter, turns []meetingctx.Turn) ([]meetingctx.Topic, error) {
	var topics []meetingctx.Topic
	for start := 0; start < len(turns); start += chunkTurns {
		chunk := turns[start:min(start+chunkTurns, len(turns))]
		in := meetingctx.SegmentInput{Turns: chunk, Earlier: topics}
		if len(topics) > 0 {
			prev := topics[len(topics)-1]
			in.Previous = &prev
			in.PreviousTurns = turns[max(prev.StartSeq, start-previousTurns):start]
		}
		out, err := seg.Segment(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("chunk at %d: %w", start, err)
		}
		next := start
		if out.ContinueTo >= 0 {
			if len(topics) == 0 || out.ContinueTo < start || out.ContinueTo > chunk[len(chunk)-1].Seq {
				return nil, fmt.Errorf("chunk at %d: ContinueTo %d outside the chunk", start, out.ContinueTo)
			}
			topics[len(topics)-1].EndSeq = out.ContinueTo
			topics[len(topics)-1].EndMS = turns[out.ContinueTo].EndMS
			next = out.ContinueTo + 1
		}
		for _, s := range out.Segments {
			if s.StartSeq != next || s.EndSeq < s.StartSeq {
				return nil, fmt.Errorf("chunk at %d: segment %d-%d, want it to start at %d", start, s.StartSeq, s.EndSeq, next)
			}
			topics = append(topics, meetingctx.Topic{
				Seq: len(topics), Title: s.Title, Summary: s.Summary, Keywords: s.Keywords,
				StartSeq: s.StartSeq, EndSeq: s.EndSeq, StartMS: turns[s.StartSeq].StartMS, EndMS: turns[s.EndSeq].EndMS,
			})
			next = s.EndSeq + 1
		}
		if want := chunk[len(chunk)-1].Seq + 1; next != want {
			return nil, fmt.Errorf("chunk at %d: covered up to %d, want %d", start, next-1, want-1)
		}
	}
	return topics, nil
}

// score is one meeting's result.
type score struct {
	name       string
	pk, wd     float64
	k          int
	ref, topic int // reference segments, hypothesis topics
}

// evaluate replays every meeting, GOMAXPROCS at a time, and scores it
// against the reference.
func evaluate(tb testing.TB, seg meetingctx.Segmenter, meetings []*qmsum.Meeting) (mean score, all []score) {
	tb.Helper()
	all = make([]score, len(meetings))
	errs := make([]error, len(meetings))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, m := range meetings {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			all[i], errs[i] = evaluateMeeting(seg, m)
		})
	}
	wg.Wait()
	for i, s := range all {
		if errs[i] != nil {
			tb.Fatalf("%s: %v", meetings[i].Name, errs[i])
		}
		mean.pk += s.pk / float64(len(meetings))
		mean.wd += s.wd / float64(len(meetings))
		mean.ref += s.ref
		mean.topic += s.topic
	}
	return mean, all
}

func evaluateMeeting(seg meetingctx.Segmenter, m *qmsum.Meeting) (score, error) {
	turns := meetingTurns(m)
	topics, err := replay(context.Background(), seg, turns)
	if err != nil {
		return score{}, err
	}
	ref := segeval.ReferenceLabels(m)
	hyp := segeval.HypothesisLabels(len(turns), topics)
	k := segeval.DefaultK(ref)
	return score{
		name: m.Name, k: k, pk: segeval.Pk(ref, hyp, k), wd: segeval.WindowDiff(ref, hyp, k),
		ref: segeval.Segments(ref), topic: segeval.Segments(hyp),
	}, nil
}

// chunkBaseline opens one topic per chunk: the predecessor's behaviour.
type chunkBaseline struct{}

func (chunkBaseline) Segment(_ context.Context, in meetingctx.SegmentInput) (meetingctx.SegmentOutput, error) {
	return meetingctx.SegmentOutput{ContinueTo: -1, Segments: []meetingctx.Segment{
		{StartSeq: in.Turns[0].Seq, EndSeq: in.Turns[len(in.Turns)-1].Seq},
	}}, nil
}

// oneTopicBaseline keeps the whole meeting in one topic.
type oneTopicBaseline struct{}

func (oneTopicBaseline) Segment(ctx context.Context, in meetingctx.SegmentInput) (meetingctx.SegmentOutput, error) {
	if in.Previous == nil {
		return chunkBaseline{}.Segment(ctx, in)
	}
	return meetingctx.SegmentOutput{ContinueTo: in.Turns[len(in.Turns)-1].Seq}, nil
}

// TestSegmentationQMSumVal replays the QMSum validation meetings through
// the default Segmenter in 25-turn chunks and guards its mean Pk.
func TestSegmentationQMSumVal(t *testing.T) {
	meetings := loadSplit(t, "val")
	mean, all := evaluate(t, local.NewSegmenter(local.SegmenterConfig{}), meetings)
	for _, s := range all {
		t.Logf("%-14s k=%3d Pk=%.3f WindowDiff=%.3f reference=%d topics=%d", s.name, s.k, s.pk, s.wd, s.ref, s.topic)
	}
	chunks, _ := evaluate(t, chunkBaseline{}, meetings)
	one, _ := evaluate(t, oneTopicBaseline{}, meetings)
	t.Logf("local segmenter:      mean Pk=%.3f WindowDiff=%.3f (%d topics for %d reference segments)",
		mean.pk, mean.wd, mean.topic, mean.ref)
	t.Logf("one topic per chunk:  mean Pk=%.3f WindowDiff=%.3f", chunks.pk, chunks.wd)
	t.Logf("whole meeting 1 topic: mean Pk=%.3f WindowDiff=%.3f", one.pk, one.wd)
	if mean.pk > 0.40 {
		t.Errorf("mean Pk %.3f on QMSum val, want at most 0.40", mean.pk)
	}
}
