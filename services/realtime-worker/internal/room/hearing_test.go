package room

import (
	"context"
	"io"
	"log/slog"
	"math"
	"slices"
	"testing"

	"github.com/mithub/mithub/services/realtime-worker/internal/audio"
	"github.com/mithub/mithub/services/realtime-worker/internal/stt"
)

// fakeStreamer records what each stream was given.
type fakeStreamer struct {
	free    int
	streams []*fakeStream
}

type fakeStream struct {
	f              *fakeStreamer
	pcm            []int16
	ended, aborted int
}

func (f *fakeStreamer) Name() string { return "fake" }
func (f *fakeStreamer) Close() error { return nil }
func (f *fakeStreamer) Transcribe(context.Context, stt.Request) (stt.Result, error) {
	return stt.Result{}, nil
}

func (f *fakeStreamer) Begin() (stt.Stream, bool, error) {
	if f.free == 0 {
		return nil, false, nil
	}
	f.free--
	s := &fakeStream{f: f}
	f.streams = append(f.streams, s)
	return s, true, nil
}

func (s *fakeStream) Write(pcm []int16) error { s.pcm = append(s.pcm, pcm...); return nil }
func (s *fakeStream) End() (stt.Result, error) {
	s.ended++
	s.f.free++
	return stt.Result{Text: "x"}, nil
}
func (s *fakeStream) Abort() { s.aborted++; s.f.free++ }

func tone(ms int, amp float64) []int16 {
	out := make([]int16, ms*audio.SampleRate/1000)
	for i := range out {
		out[i] = int16(amp * 32767 * math.Sin(2*math.Pi*300*float64(i)/audio.SampleRate))
	}
	return out
}

// run feeds pcm in 20 ms packets as listen does and returns the finished
// utterances.
func run(l *liveDecode, pcm []int16) []utterance {
	v := audio.NewVAD(audio.VADConfig{})
	var out []utterance
	for i := 0; i < len(pcm); i += 320 {
		for _, u := range v.Write(pcm[i:min(i+320, len(pcm))], int64(i)) {
			out = append(out, l.finish(u, 0))
		}
		l.feed(v)
	}
	if u, ok := v.Flush(); ok {
		out = append(out, l.finish(u, 0))
	}
	l.abort()
	return out
}

func TestLiveDecodeStreamsEachUtteranceWhole(t *testing.T) {
	f := &fakeStreamer{free: 3} // the recogniser ends streams later
	l := &liveDecode{streamer: f, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	// Speech, a click too short to keep, speech, speech cut by the end.
	pcm := slices.Concat(tone(500, 0), tone(900, 0.3), tone(1000, 0), tone(100, 0.4), tone(1000, 0),
		tone(700, 0.3), tone(1000, 0), tone(600, 0.3))
	us := run(l, pcm)
	if len(us) != 3 {
		t.Fatalf("%d utterances, want 3", len(us))
	}
	for i, u := range us {
		if u.stream == nil {
			t.Fatalf("utterance %d not streamed", i)
		}
		s := u.stream.(*fakeStream)
		if !slices.Equal(s.pcm, u.u.PCM) {
			t.Errorf("utterance %d: stream got %d samples, the utterance has %d", i, len(s.pcm), len(u.u.PCM))
		}
		if _, err := u.stream.End(); err != nil {
			t.Fatal(err)
		}
	}
	// The click opened a stream that was aborted, never ended.
	aborted := 0
	for _, s := range f.streams {
		aborted += s.aborted
		if s.ended+s.aborted != 1 {
			t.Errorf("stream ended %d and aborted %d times", s.ended, s.aborted)
		}
	}
	if aborted != 1 || f.free != 3 {
		t.Errorf("%d streams aborted, %d decoders free; want 1 and 3", aborted, f.free)
	}
}

func TestLiveDecodeWithoutAFreeDecoderLeavesTheUtteranceWhole(t *testing.T) {
	f := &fakeStreamer{free: 0}
	l := &liveDecode{streamer: f, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	us := run(l, slices.Concat(tone(300, 0), tone(800, 0.3), tone(1000, 0)))
	if len(us) != 1 || us[0].stream != nil || len(us[0].u.PCM) == 0 {
		t.Fatalf("got %+v, want one utterance to transcribe whole", us)
	}
}

func TestSTTSegmentIDIsStableAndShort(t *testing.T) {
	if a, b := sttSegmentID("r", "TR_1", 1500), sttSegmentID("r", "TR_1", 1500); a != b || a != "stt:r:TR_1:1500" {
		t.Errorf("ids %q %q", a, b)
	}
	long := string(make([]byte, 300))
	if id := sttSegmentID(long, "TR_1", 1); len(id) > 64 {
		t.Errorf("id for a long room is %d bytes", len(id))
	}
}
