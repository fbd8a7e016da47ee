package audio

import (
	"math"
	"testing"
)

// tone is ms milliseconds of a 300 Hz tone at amp (0: silence).
func tone(msLen int, amp float64) []int16 {
	n := msLen * SampleRate / 1000
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(amp * 32767 * math.Sin(2*math.Pi*300*float64(i)/SampleRate))
	}
	return out
}

func concat(parts ...[]int16) []int16 {
	var out []int16
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestVADCutsUtterancesAtPausesLongerThanTheHangover(t *testing.T) {
	// 1 s quiet, 1.2 s speech with a 200 ms pause inside, 1 s quiet,
	// 0.8 s speech, 1 s quiet, a 100 ms click, 1 s quiet.
	noise := 0.001
	pcm := concat(tone(1000, noise), tone(600, 0.3), tone(200, noise), tone(600, 0.3), tone(1000, noise),
		tone(800, 0.2), tone(1000, noise), tone(100, 0.5), tone(1000, noise))
	v := NewVAD(VADConfig{})
	var got []Utterance
	// Feed in 20 ms packets, as they come off the network.
	for i := 0; i < len(pcm); i += 320 {
		got = append(got, v.Write(pcm[i:min(i+320, len(pcm))], int64(i))...)
	}
	if u, ok := v.Flush(); ok {
		got = append(got, u)
	}
	if len(got) != 2 {
		t.Fatalf("got %d utterances, want 2 (the click is too short): %+v", len(got), bounds(got))
	}
	want := [][2]int64{{1000, 2400}, {3400, 4200}}
	for i, u := range got {
		if d := u.StartMS() - want[i][0]; d < -40 || d > 40 {
			t.Errorf("utterance %d starts at %d ms, want %d", i, u.StartMS(), want[i][0])
		}
		if d := u.EndMS() - want[i][1]; d < -40 || d > 40 {
			t.Errorf("utterance %d ends at %d ms, want %d", i, u.EndMS(), want[i][1])
		}
		if u.PCMStart > u.Start || u.PCMStart+int64(len(u.PCM)) < u.End {
			t.Errorf("utterance %d: PCM [%d,%d) does not cover speech [%d,%d)", i, u.PCMStart, u.PCMStart+int64(len(u.PCM)), u.Start, u.End)
		}
	}
}

func bounds(us []Utterance) [][2]int64 {
	var out [][2]int64
	for _, u := range us {
		out = append(out, [2]int64{u.StartMS(), u.EndMS()})
	}
	return out
}

func TestVADTrackStoppingMidWordFlushes(t *testing.T) {
	v := NewVAD(VADConfig{})
	if us := v.Write(concat(tone(500, 0), tone(700, 0.3)), 0); len(us) != 0 {
		t.Fatalf("utterance before the end: %+v", bounds(us))
	}
	u, ok := v.Flush()
	if !ok || u.StartMS() < 460 || u.EndMS() != 1200 {
		t.Fatalf("Flush = %v %v, want speech 500..1200 ms", ok, bounds([]Utterance{u}))
	}
	if _, ok := v.Flush(); ok {
		t.Fatal("second Flush returned an utterance")
	}
}

func TestVADLongGapEndsUtteranceShortGapIsSilence(t *testing.T) {
	v := NewVAD(VADConfig{})
	v.Write(tone(600, 0.3), 0)
	// 100 ms missing: filled, the utterance goes on.
	if us := v.Write(tone(400, 0.3), ms(700)); len(us) != 0 {
		t.Fatalf("short gap ended the utterance: %+v", bounds(us))
	}
	// 5 s missing: the utterance ends where the audio stopped.
	us := v.Write(tone(400, 0.3), ms(6100))
	if len(us) != 1 || us[0].EndMS() != 1100 {
		t.Fatalf("after a long gap got %+v, want one utterance ending at 1100 ms", bounds(us))
	}
}

func TestVADSilenceAndClippingDoNotPanic(t *testing.T) {
	v := NewVAD(VADConfig{})
	clip := make([]int16, SampleRate)
	for i := range clip {
		clip[i] = math.MaxInt16
		if i%2 == 1 {
			clip[i] = math.MinInt16
		}
	}
	us := v.Write(concat(make([]int16, 2*SampleRate), clip, make([]int16, SampleRate)), 0)
	if len(us) != 1 {
		t.Fatalf("clipped second: %d utterances, want 1", len(us))
	}
}

func TestWAVRoundTripAndResample(t *testing.T) {
	pcm := tone(250, 0.5)
	got, rate, err := ParseWAV(WAV(pcm, SampleRate))
	if err != nil || rate != SampleRate || len(got) != len(pcm) || got[100] != pcm[100] {
		t.Fatalf("ParseWAV = %d samples at %d, %v", len(got), rate, err)
	}
	if _, _, err := ParseWAV([]byte("RIFF....WAVEjunk")); err == nil {
		t.Error("ParseWAV accepted a file without fmt/data")
	}
	r := Resample(make([]int16, 22050), 22050, SampleRate)
	if len(r) != SampleRate {
		t.Errorf("Resample 1 s at 22050 Hz = %d samples, want %d", len(r), SampleRate)
	}
}
