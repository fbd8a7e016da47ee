package transcript_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"google.golang.org/protobuf/proto"

	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
)

var fuzzNow = time.Unix(1_700_000_000, 0)

// owner knows one track, TR_known, published by "kim".
func owner(sid string) (transcript.Participant, bool) {
	if sid == "TR_known" {
		return transcript.Participant{Identity: "kim", Name: "김민수"}, true
	}
	return transcript.Participant{}, false
}

// checkTextStream checks FromTextStream's contract for one stream.
func checkTextStream(t *testing.T, streamID string, attrs map[string]string, text string, sender transcript.Participant) {
	t.Helper()
	seg := transcript.FromTextStream(streamID, attrs, text, sender, owner, fuzzNow)
	wantID := attrs[transcript.AttrSegmentID]
	if wantID == "" {
		wantID = streamID
	}
	wantSpeaker := sender
	if attrs[transcript.AttrTranscribedTrack] == "TR_known" {
		wantSpeaker, _ = owner("TR_known")
	}
	final := strings.ToLower(strings.TrimSpace(attrs[transcript.AttrFinal]))
	wantFinal := final == "true" || final == "1" || final == "yes"
	switch {
	case seg.ID != wantID:
		t.Fatalf("ID %q, want %q", seg.ID, wantID)
	case seg.SpeakerID != wantSpeaker.Identity || seg.SpeakerName != wantSpeaker.Name:
		t.Fatalf("speaker %q/%q, want %+v", seg.SpeakerID, seg.SpeakerName, wantSpeaker)
	case seg.Text != strings.TrimSpace(text):
		t.Fatalf("text %q, want %q trimmed", seg.Text, text)
	case seg.Final != wantFinal:
		t.Fatalf("final %v for %s=%q", seg.Final, transcript.AttrFinal, attrs[transcript.AttrFinal])
	case seg.Source != transcript.SourceTextStream || seg.Confidence != 1 || !seg.Received.Equal(fuzzNow):
		t.Fatalf("segment %+v", seg)
	}
}

// FuzzTextStreamAttributes builds segments from lk.transcription text
// streams with fuzzed attributes: the id, speaker, text and finality
// follow the attributes exactly.
func FuzzTextStreamAttributes(f *testing.F) {
	f.Fuzz(func(t *testing.T, streamID, segmentID, final, track, text, sender string) {
		attrs := map[string]string{}
		for k, v := range map[string]string{
			transcript.AttrSegmentID: segmentID, transcript.AttrFinal: final, transcript.AttrTranscribedTrack: track,
		} {
			if v != "" {
				attrs[k] = v
			}
		}
		checkTextStream(t, streamID, attrs, text, transcript.Participant{Identity: sender, Name: "이름 " + sender})
	})
}

// FuzzDataPacket decodes fuzzed bytes as a LiveKit data packet the way the
// room receives it and builds segments from transcription packets and
// lk.transcription stream headers (with text as the stream's content).
func FuzzDataPacket(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		var pkt livekit.DataPacket
		if err := proto.Unmarshal(data, &pkt); err != nil {
			return
		}
		if tr := pkt.GetTranscription(); tr != nil {
			speaker := transcript.Participant{Identity: tr.GetTranscribedParticipantIdentity(), Name: pkt.GetParticipantIdentity()}
			for _, ts := range lksdk.ExtractTranscriptionSegments(tr) {
				seg := transcript.FromTranscription(ts, speaker, fuzzNow)
				if seg.ID != ts.ID || seg.Text != strings.TrimSpace(ts.Text) || seg.Final != ts.Final ||
					seg.SpeakerID != speaker.Identity || seg.Source != transcript.SourceTranscription {
					t.Fatalf("segment %+v from %+v", seg, ts)
				}
			}
		}
		if h := pkt.GetStreamHeader(); h != nil && h.GetTopic() == transcript.TopicTranscription {
			checkTextStream(t, h.GetStreamId(), h.GetAttributes(), text,
				transcript.Participant{Identity: pkt.GetParticipantIdentity()})
		}
	})
}

// FuzzReadReplay parses fuzzed JSONL replay files: a file either fails
// with ErrBadReplay (or a read error) or gives segments that are final or
// interim, attributed, non-empty, with ordered non-negative times.
func FuzzReadReplay(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		segs, err := transcript.ReadReplay(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, transcript.ErrBadReplay) && !strings.HasPrefix(err.Error(), "read replay:") {
				t.Fatalf("error %v is neither ErrBadReplay nor a read error", err)
			}
			return
		}
		for i, s := range segs {
			switch {
			case s.ID == "" || s.SpeakerID == "":
				t.Fatalf("segment %d has no id or speaker: %+v", i, s)
			case s.Text == "" || s.Text != strings.TrimSpace(s.Text):
				t.Fatalf("segment %d text %q", i, s.Text)
			case s.StartMS < 0 || s.EndMS < s.StartMS:
				t.Fatalf("segment %d times %d..%d", i, s.StartMS, s.EndMS)
			case s.Source != transcript.SourceReplay:
				t.Fatalf("segment %d source %q", i, s.Source)
			}
		}
	})
}
