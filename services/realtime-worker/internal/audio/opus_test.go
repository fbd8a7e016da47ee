//go:build cgo

package audio

import "testing"

func TestOpusRoundTripKeepsDurationAndEnergy(t *testing.T) {
	enc, err := NewEncoder(32000)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	dec, err := NewDecoder()
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	in := tone(1000, 0.3)
	var out []int16
	for i := 0; i+FrameSamples <= len(in); i += FrameSamples {
		pkt, err := enc.Encode(in[i : i+FrameSamples])
		if err != nil {
			t.Fatal(err)
		}
		pcm, err := dec.Decode(pkt, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pcm...)
	}
	if len(out) != len(in) {
		t.Fatalf("decoded %d samples, want %d", len(out), len(in))
	}
	if in, got := Level(in[8000:]), Level(out[8000:]); got < in-3 || got > in+3 {
		t.Errorf("level after round trip %.1f dB, want about %.1f", got, in)
	}
	// A lost packet is concealed with a frame of samples.
	if pcm, err := dec.Decode(nil, FrameSamples); err != nil || len(pcm) != FrameSamples {
		t.Errorf("concealment = %d samples, %v", len(pcm), err)
	}
	if _, err := dec.Decode([]byte{0xff, 0xff, 0xff}, 0); err == nil {
		t.Error("garbage packet decoded without error")
	}
}
