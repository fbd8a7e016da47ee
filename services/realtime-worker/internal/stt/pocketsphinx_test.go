package stt_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	required "github.com/mithub/mithub/pkg/testenv"
	"github.com/mithub/mithub/services/realtime-worker/internal/stt"
	"github.com/mithub/mithub/services/realtime-worker/internal/testenv"
)

// speak synthesises text or ends the test when espeak-ng is missing.
func speak(t *testing.T, text, voice string) []int16 {
	t.Helper()
	pcm, err := testenv.Speak(text, voice, 140)
	if errors.Is(err, testenv.ErrNoEspeak) {
		required.Missing(t, "needs espeak-ng (apt install espeak-ng; scripts/dev-up.sh installs it)")
	}
	if err != nil {
		t.Fatal(err)
	}
	return pcm
}

// sentences are the test speech.
var sentences = []string{
	"we should ship the release on friday",
	"the database migration is finished",
	"please send the report to the team",
	"what did we decide about the launch",
	"i will update the checklist tomorrow",
	"the budget is the open question",
	"we agreed to launch in the second week of march",
	"can you share the slides after the meeting",
}

func pocketSphinx(t *testing.T) *stt.PocketSphinx {
	t.Helper()
	p, err := stt.NewPocketSphinx(stt.PocketSphinxConfig{Words: stt.DefaultPocketSphinxWords, Decoders: 2})
	if err != nil {
		required.Missing(t, "needs pocketsphinx with its US English model (apt install libpocketsphinx-dev pocketsphinx-en-us; scripts/dev-up.sh installs them): %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func TestPocketSphinxRecognisesSynthesisedSpeech(t *testing.T) {
	p := pocketSphinx(t)
	var total, errs int
	var audioDur, took, cpu time.Duration
	for i, s := range sentences {
		voice := testenv.Voices[i%len(testenv.Voices)]
		pcm := speak(t, s, voice)
		began, cpuBefore := time.Now(), cpuTime(t)
		res, err := p.Transcribe(context.Background(), stt.Request{PCM: pcm})
		if i > 0 { // the first warms the caches
			took += time.Since(began)
			cpu += cpuTime(t) - cpuBefore
			audioDur += time.Duration(len(pcm)) * time.Second / 16000
		}
		if err != nil {
			t.Fatal(err)
		}
		e, n := stt.WordErrors(s, res.Text)
		total += n
		errs += e
		t.Logf("%s: %q -> %q (confidence %.2f, %d/%d word errors)", voice, s, res.Text, res.Confidence, e, n)
		if res.Language != "en" || res.Confidence != 0 {
			t.Errorf("result %+v: want language en and confidence 0 (unknown)", res)
		}
	}
	wer := float64(errs) / float64(total)
	t.Logf("WER %.1f%% over %d words; decoding %s of audio took %s (%s of CPU: %.2f of a core per continuous speaker)",
		100*wer, total, audioDur.Round(time.Millisecond), took.Round(time.Millisecond), cpu.Round(time.Millisecond), cpu.Seconds()/audioDur.Seconds())
	// The US English model on espeak-ng's formant voices gets roughly
	// two words in three wrong; audio that reaches it damaged (wrong rate,
	// cut) scores 100% or more.
	if wer > 0.9 {
		t.Errorf("WER %.1f%%, want at most 90%%", 100*wer)
	}
	if res, err := p.Transcribe(context.Background(), stt.Request{PCM: make([]int16, 16000)}); err != nil || res.Text != "" {
		t.Errorf("a second of silence = %+v, %v; want no text", res, err)
	}
}

func TestParseWordsRefusesBadEntries(t *testing.T) {
	if _, err := stt.ParseWords([]string{"mithub:M IH T HH AH B"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"mithub", "mit hub:M IH T", "x:QQ", ":AH"} {
		if _, err := stt.ParseWords([]string{bad}); err == nil {
			t.Errorf("ParseWords(%q) accepted", bad)
		}
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestPocketSphinxStreamsWhileSpoken(t *testing.T) {
	p := pocketSphinx(t) // two decoders
	var errs, total int
	for i, s := range sentences {
		pcm := append(append(make([]int16, 3200), speak(t, s, testenv.Voices[i%len(testenv.Voices)])...), make([]int16, 8000)...)
		st, ok, err := p.Begin()
		if err != nil || !ok {
			t.Fatalf("Begin = %v, %v", ok, err)
		}
		for j := 0; j < len(pcm); j += 320 {
			if err := st.Write(pcm[j:min(j+320, len(pcm))]); err != nil {
				t.Fatal(err)
			}
		}
		began := time.Now()
		res, err := st.End()
		if err != nil {
			t.Fatal(err)
		}
		e, n := stt.WordErrors(s, res.Text)
		errs += e
		total += n
		t.Logf("%q -> %q (end took %s)", s, res.Text, time.Since(began).Round(time.Millisecond))
	}
	wer := float64(errs) / float64(total)
	t.Logf("streamed: WER %.1f%% over %d words", 100*wer, total)
	if wer > 0.9 {
		t.Errorf("WER %.1f%%, want at most 90%%", 100*wer)
	}
	// With both decoders taken, Begin declines instead of waiting.
	a, ok1, _ := p.Begin()
	b, ok2, _ := p.Begin()
	if !ok1 || !ok2 {
		t.Fatal("two decoders not both free")
	}
	if _, ok, err := p.Begin(); ok || err != nil {
		t.Errorf("third Begin = %v, %v; want declined", ok, err)
	}
	a.Abort()
	b.Abort()
	if c, ok, _ := p.Begin(); !ok {
		t.Error("Begin declined after the streams were released")
	} else {
		c.Abort()
	}
}
