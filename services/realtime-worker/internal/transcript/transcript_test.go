package transcript_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
)

func TestFromTextStream(t *testing.T) {
	owner := func(sid string) (transcript.Participant, bool) {
		if sid == "TR_kim" {
			return transcript.Participant{Identity: "kim", Name: "김민수"}, true
		}
		return transcript.Participant{}, false
	}
	agent := transcript.Participant{Identity: "agent", Name: "Agent"}
	now := time.Now()
	tests := []struct {
		name  string
		attrs map[string]string
		want  transcript.Segment
	}{
		{"track owner is the speaker", map[string]string{"lk.segment_id": "SG_1", "lk.transcription_final": "true", "lk.transcribed_track_id": "TR_kim"},
			transcript.Segment{ID: "SG_1", SpeakerID: "kim", SpeakerName: "김민수", Final: true}},
		{"unknown track falls back to the sender", map[string]string{"lk.segment_id": "SG_2", "lk.transcription_final": "true", "lk.transcribed_track_id": "TR_x"},
			transcript.Segment{ID: "SG_2", SpeakerID: "agent", SpeakerName: "Agent", Final: true}},
		{"interim", map[string]string{"lk.segment_id": "SG_3", "lk.transcription_final": "false"},
			transcript.Segment{ID: "SG_3", SpeakerID: "agent", SpeakerName: "Agent"}},
		{"no segment id uses the stream id", map[string]string{"lk.transcription_final": "TRUE"},
			transcript.Segment{ID: "stream-1", SpeakerID: "agent", SpeakerName: "Agent", Final: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := transcript.FromTextStream("stream-1", tt.attrs, "  예산 확정 \n", agent, owner, now)
			tt.want.Text, tt.want.Confidence, tt.want.Source, tt.want.Received = "예산 확정", 1, transcript.SourceTextStream, now
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestReadReplay(t *testing.T) {
	in := `{"segment_id":"r1","speaker_id":"kim","speaker_name":"김민수","text":"안녕하세요","start_ms":0,"end_ms":900}

{"speaker_name":"Amy","text":"Hello there","start_ms":1000,"end_ms":1800,"confidence":0.8}
{"speaker_id":"kim","text":"draft","start_ms":2000,"final":false}
`
	segs, err := transcript.ReadReplay(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 3 {
		t.Fatalf("%d segments", len(segs))
	}
	if s := segs[0]; s.ID != "r1" || s.SpeakerName != "김민수" || !s.Final || s.EndMS != 900 || s.Source != transcript.SourceReplay {
		t.Errorf("segment 0 = %+v", s)
	}
	if s := segs[1]; s.ID != "replay-3" || s.SpeakerID != "Amy" || s.Confidence != 0.8 {
		t.Errorf("segment 1 = %+v", s)
	}
	if s := segs[2]; s.Final || s.EndMS != 2000 {
		t.Errorf("segment 2 = %+v", s)
	}

	for _, bad := range []string{
		`{"speaker_id":"a","text":""}`,
		`{"text":"no speaker"}`,
		`{"speaker_id":"a","text":"x","extra":1}`,
		`{"speaker_id":"a","text":"x","start_ms":5,"end_ms":2}`,
		`not json`,
	} {
		if _, err := transcript.ReadReplay(strings.NewReader(bad)); !errors.Is(err, transcript.ErrBadReplay) {
			t.Errorf("ReadReplay(%s) = %v, want ErrBadReplay", bad, err)
		}
	}
}

func TestReplayKeepsOrder(t *testing.T) {
	segs := []transcript.Segment{{ID: "a", StartMS: 0}, {ID: "b", StartMS: 10}, {ID: "c", StartMS: 20}}
	out := make(chan transcript.Segment, 3)
	if err := transcript.Replay(context.Background(), segs, 100, out); err != nil {
		t.Fatal(err)
	}
	close(out)
	var ids []string
	for s := range out {
		ids = append(ids, s.ID)
		if s.Received.IsZero() {
			t.Errorf("segment %s has no arrival time", s.ID)
		}
	}
	if strings.Join(ids, "") != "abc" {
		t.Errorf("order %v", ids)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := transcript.Replay(ctx, segs, 0, make(chan transcript.Segment)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled replay = %v", err)
	}
}
