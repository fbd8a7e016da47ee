package segment_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/pkg/segeval"
	"github.com/mithub/mithub/pkg/segment"
)

// Engine parameters the evaluation replays.
const (
	chunkTurns    = 25 // l1_update_turn_threshold
	previousTurns = 10 // SegmentInput.PreviousTurns cap
)

// loadSplit loads every QMSum meeting of a split ("train", "val").
func loadSplit(tb testing.TB, split string) []*qmsum.Meeting {
	tb.Helper()
	dir := qmsumtest.Dir(tb)
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
	pk, wd, f1 float64
	k          int
	ref, topic int // reference segments, hypothesis topics
}

// segmentFunc segments a whole meeting's turns into topics.
type segmentFunc func(ctx context.Context, m *qmsum.Meeting, turns []meetingctx.Turn) ([]meetingctx.Topic, error)

// live replays the meeting through seg in 25-turn chunks.
func live(seg meetingctx.Segmenter) segmentFunc {
	return func(ctx context.Context, _ *qmsum.Meeting, turns []meetingctx.Turn) ([]meetingctx.Topic, error) {
		return replay(ctx, seg, turns)
	}
}

// offline runs the end-of-meeting pass over all turns at once.
func offline(seg *segment.Segmenter) segmentFunc {
	return func(ctx context.Context, _ *qmsum.Meeting, turns []meetingctx.Turn) ([]meetingctx.Topic, error) {
		segs, err := seg.SegmentMeeting(ctx, turns)
		if err != nil {
			return nil, err
		}
		return topicsOf(segs), nil
	}
}

func topicsOf(segs []meetingctx.Segment) []meetingctx.Topic {
	topics := make([]meetingctx.Topic, len(segs))
	for i, s := range segs {
		topics[i] = meetingctx.Topic{Seq: i, StartSeq: s.StartSeq, EndSeq: s.EndSeq, Title: s.Title}
	}
	return topics
}

// fixed cuts the meeting every size turns.
func fixed(size int) segmentFunc {
	return func(_ context.Context, _ *qmsum.Meeting, turns []meetingctx.Turn) ([]meetingctx.Topic, error) {
		var segs []meetingctx.Segment
		for s := 0; s < len(turns); s += size {
			segs = append(segs, meetingctx.Segment{StartSeq: s, EndSeq: min(s+size, len(turns)) - 1})
		}
		return topicsOf(segs), nil
	}
}

// evenSplit cuts the meeting into as many equal parts as it has annotated
// topics: a baseline that is told the true count.
func evenSplit(_ context.Context, m *qmsum.Meeting, turns []meetingctx.Turn) ([]meetingctx.Topic, error) {
	k := segeval.Segments(segeval.ReferenceLabels(m))
	var segs []meetingctx.Segment
	for j := range k {
		from, to := j*len(turns)/k, (j+1)*len(turns)/k-1
		if to >= from {
			segs = append(segs, meetingctx.Segment{StartSeq: from, EndSeq: to})
		}
	}
	return topicsOf(segs), nil
}

// evaluate segments every meeting, GOMAXPROCS at a time, and scores it
// against the reference: mean Pk, WindowDiff and F1 (±3 turns), total
// topics and reference segments.
func evaluate(tb testing.TB, seg segmentFunc, meetings []*qmsum.Meeting) (mean score, all []score) {
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
		mean.f1 += s.f1 / float64(len(meetings))
		mean.ref += s.ref
		mean.topic += s.topic
	}
	return mean, all
}

func evaluateMeeting(seg segmentFunc, m *qmsum.Meeting) (score, error) {
	turns := meetingTurns(m)
	topics, err := seg(context.Background(), m, turns)
	if err != nil {
		return score{}, err
	}
	if len(topics) == 0 {
		return score{}, fmt.Errorf("no topics")
	}
	ref := segeval.ReferenceLabels(m)
	hyp := segeval.HypothesisLabels(len(turns), topics)
	k := segeval.DefaultK(ref)
	_, _, f1 := segeval.BoundaryPRF(ref, hyp, segeval.BoundaryTolerance)
	return score{
		name: m.Name, k: k, pk: segeval.Pk(ref, hyp, k), wd: segeval.WindowDiff(ref, hyp, k), f1: f1,
		ref: segeval.Segments(ref), topic: segeval.Segments(hyp),
	}, nil
}

// TestSegmentationQMSumVal replays the QMSum validation meetings through
// the default Segmenter, live in 25-turn chunks and in one end-of-meeting
// pass, and scores both beside baselines computed in the same run: the
// segmenter must beat the whole meeting as one topic and an even split
// into the annotated number of topics by a margin, with a realistic number
// of topics.
func TestSegmentationQMSumVal(t *testing.T) {
	meetings := loadSplit(t, "val")
	seg := segment.NewSegmenter(segment.SegmenterConfig{})
	rows := []struct {
		name string
		f    segmentFunc
	}{
		{"local, live 25-turn chunks", live(seg)},
		{"local, end-of-meeting pass", offline(seg)},
		{"one topic", fixed(1 << 30)},
		{"even split (annotated count)", evenSplit},
		{"fixed 25 turns", fixed(25)},
		{"fixed 120 turns", fixed(120)},
	}
	means := make([]score, len(rows))
	for i, r := range rows {
		var all []score
		means[i], all = evaluate(t, r.f, meetings)
		if i == 0 {
			for _, s := range all {
				t.Logf("%-14s k=%3d Pk=%.3f WD=%.3f F1=%.3f reference=%d topics=%d", s.name, s.k, s.pk, s.wd, s.f1, s.ref, s.topic)
			}
		}
	}
	t.Logf("%-30s %6s %6s %6s %7s", "segmenter", "Pk", "WD", "F1±3", "topics")
	for i, r := range rows {
		m := means[i]
		t.Logf("%-30s %6.3f %6.3f %6.3f %7.2f", r.name, m.pk, m.wd, m.f1, float64(m.topic)/float64(m.ref))
	}
	const margin = 0.04
	one, even := means[2], means[3]
	for _, m := range means[:2] {
		if m.pk > one.pk-margin || m.pk > even.pk-margin {
			t.Errorf("mean Pk %.3f, want at least %.2f below one topic (%.3f) and the even split (%.3f)", m.pk, margin, one.pk, even.pk)
		}
		if ratio := float64(m.topic) / float64(m.ref); ratio < 0.6 || ratio > 1.6 {
			t.Errorf("%d topics for %d annotated (%.2f×), want 0.6-1.6×", m.topic, m.ref, ratio)
		}
	}
}
