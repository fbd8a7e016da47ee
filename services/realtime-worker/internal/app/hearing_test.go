package app_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"

	"github.com/mithub/mithub/pkg/store"
	required "github.com/mithub/mithub/pkg/testenv"
	"github.com/mithub/mithub/services/realtime-worker/internal/audio"
	"github.com/mithub/mithub/services/realtime-worker/internal/stt"
	"github.com/mithub/mithub/services/realtime-worker/internal/testenv"
	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
)

// mic is a participant's microphone: PCM queued with say is Opus-encoded
// and sent in real time, 20 ms a packet; silence is sent in between, as a
// browser does.
type mic struct {
	*participant
	identity, name string
	track          *webrtc.TrackLocalStaticSample
	sid            string

	mu    sync.Mutex
	queue []chunk
}

// chunk is PCM to send; done receives the time its last sample was sent.
type chunk struct {
	pcm  []int16
	done chan time.Time
}

// speechWPM is the speaking rate of the test voices.
const speechWPM = 140

// publishMic joins the room as identity and publishes a microphone track.
func publishMic(t *testing.T, lk *testenv.LiveKit, roomName, identity, name string) *mic {
	t.Helper()
	m := &mic{participant: join(t, lk, roomName, identity, name, false), identity: identity, name: name}
	var err error
	m.track, err = webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2}, "audio", identity+"-mic")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := m.room.LocalParticipant.PublishTrack(m.track, &lksdk.TrackPublicationOptions{Name: "microphone", Source: livekit.TrackSource_MICROPHONE})
	if err != nil {
		t.Fatalf("%s publishes a microphone: %v", identity, err)
	}
	m.sid = pub.SID()
	enc, err := audio.NewEncoder(32000)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() {
		close(stop)
		<-done
		enc.Close()
	})
	go m.pump(enc, stop, done)
	return m
}

// pump sends a frame every 20 ms on an absolute schedule, so a late
// wake-up catches up instead of stretching the audio.
func (m *mic) pump(enc *audio.Encoder, stop, done chan struct{}) {
	defer close(done)
	const frame = 20 * time.Millisecond
	silence := make([]int16, audio.FrameSamples)
	next := time.Now()
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		case <-time.After(time.Until(next)):
		}
		next = next.Add(frame)
		pcm := silence
		var finished chan time.Time
		m.mu.Lock()
		if len(m.queue) > 0 {
			c := &m.queue[0]
			k := min(audio.FrameSamples, len(c.pcm))
			pcm = append(append([]int16(nil), c.pcm[:k]...), silence[:audio.FrameSamples-k]...)
			c.pcm = c.pcm[k:]
			if len(c.pcm) == 0 {
				finished = c.done
				m.queue = m.queue[1:]
			}
		}
		m.mu.Unlock()
		pkt, err := enc.Encode(pcm)
		if err == nil {
			_ = m.track.WriteSample(media.Sample{Data: pkt, Duration: frame})
		}
		if finished != nil {
			finished <- time.Now()
		}
	}
}

// say queues pcm and returns when its last sample was sent, with that time.
func (m *mic) say(pcm []int16) time.Time {
	done := make(chan time.Time, 1)
	m.mu.Lock()
	m.queue = append(m.queue, chunk{pcm: pcm, done: done})
	m.mu.Unlock()
	return <-done
}

// speak synthesises text or ends the test when espeak-ng is missing.
func speak(t *testing.T, text, voice string) []int16 {
	t.Helper()
	pcm, err := testenv.Speak(text, voice, speechWPM)
	if errors.Is(err, testenv.ErrNoEspeak) {
		required.Missing(t, "needs espeak-ng (apt install espeak-ng; scripts/dev-up.sh installs it)")
	}
	if err != nil {
		t.Fatal(err)
	}
	return pcm
}

// trailingQuiet is how long a clip goes on after its voice ends (espeak-ng
// ends a sentence with silence): latencies count from the end of voice.
func trailingQuiet(t *testing.T, pcm []int16) time.Duration {
	t.Helper()
	v := audio.NewVAD(audio.VADConfig{})
	us := v.Write(append(append(pause(500), pcm...), pause(1500)...), 0)
	if len(us) == 0 {
		t.Fatal("no speech in the clip")
	}
	end := us[len(us)-1].End - int64(len(pause(500)))
	return time.Duration(int64(len(pcm))-end) * time.Second / audio.SampleRate
}

// pause is ms of silence.
func pause(ms int) []int16 { return make([]int16, ms*audio.SampleRate/1000) }

// sttRows are a meeting's rows that the bot transcribed itself, by speaker.
func sttRows(t *testing.T, s *stack, meetingID string) map[string][]store.Transcript {
	t.Helper()
	all, err := s.st.ListTranscripts(context.Background(), s.worker.app.TenantID(), meetingID, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]store.Transcript{}
	for _, tr := range all {
		if strings.HasPrefix(tr.Source, transcript.SourceSTT) {
			out[tr.SpeakerID] = append(out[tr.SpeakerID], tr)
		}
	}
	return out
}

// botIn waits for the bot in the room and returns the meeting id.
func botIn(t *testing.T, s *stack, roomName string, p *participant) string {
	t.Helper()
	s.joinTask(t, roomName)
	eventually(t, 30*time.Second, "the bot in the room", func() bool {
		return p.room.GetParticipantByIdentity("mithub-bot") != nil && s.worker.app.Rooms()[roomName] != ""
	})
	return s.worker.app.Rooms()[roomName]
}

// percentile of sorted durations.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(int(p*float64(len(s))), len(s)-1)]
}

func TestPocketSphinxTranscribesMicrophonesThroughLiveKit(t *testing.T) {
	if _, err := stt.NewPocketSphinx(stt.PocketSphinxConfig{Decoders: 1}); err != nil {
		required.Missing(t, "needs pocketsphinx and its US English model (apt install libpocketsphinx-dev pocketsphinx-en-us; scripts/dev-up.sh installs them): %v", err)
	}
	speakers := []struct {
		identity, name, voice string
		lines                 []string
	}{
		{"ana", "Ana Lopez", "en-us", []string{"we should ship the release on friday", "please send the report to the team"}},
		{"ben", "Ben Stone", "en-us+f2", []string{"what did we decide about the launch", "the database migration is finished"}},
		{"cho", "Cho Min", "en+m3", []string{"i will update the checklist tomorrow", "the budget is the open question"}},
		{"dan", "Dan Ito", "en-us+f3", []string{"we agreed to launch in the second week of march", "can you share the slides after the meeting"}},
	}
	// Synthesise first: the speakers then talk at the same time.
	speech := make([][][]int16, len(speakers))
	for i, sp := range speakers {
		for _, l := range sp.lines {
			speech[i] = append(speech[i], speak(t, l, sp.voice))
		}
	}
	s := newStackWith(t, map[string]string{
		"MITHUB_STT_PROVIDER": "pocketsphinx", "MITHUB_STT_WAIT": "500ms", "MITHUB_STT_DECODERS": "4",
	})
	const roomName = "standup-audio"
	mics := make([]*mic, len(speakers))
	for i, sp := range speakers {
		mics[i] = publishMic(t, s.lk, roomName, sp.identity, sp.name)
	}
	meetingID := botIn(t, s, roomName, mics[0].participant)
	for _, m := range mics {
		eventually(t, 30*time.Second, "the bot decoding "+m.identity+"'s microphone", func() bool { return s.worker.app.Transcribing(m.sid) })
	}

	type spoken struct {
		speaker, text string
		end           time.Time
	}
	want := 0
	for _, sp := range speakers {
		want += len(sp.lines)
	}
	// Rows are watched while people speak: a row's arrival, against the
	// end of its speech, is the latency.
	seen := map[string]time.Time{}
	watched := make(chan struct{})
	stopWatch := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			n := 0
			for _, rs := range sttRows(t, s, meetingID) {
				for _, r := range rs {
					if _, ok := seen[r.SegmentID]; !ok {
						seen[r.SegmentID] = time.Now()
					}
					n++
				}
			}
			select {
			case <-stopWatch:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if n >= want {
				return
			}
		}
	}()
	var mu sync.Mutex
	var said []spoken
	var wg sync.WaitGroup
	for i, m := range mics {
		wg.Go(func() {
			m.say(pause(300 * (i + 1)))
			for j, pcm := range speech[i] {
				end := m.say(pcm).Add(-trailingQuiet(t, pcm))
				mu.Lock()
				said = append(said, spoken{m.identity, speakers[i].lines[j], end})
				mu.Unlock()
				m.say(pause(1500))
			}
		})
	}
	wg.Wait()
	select {
	case <-watched:
	case <-time.After(60 * time.Second):
		close(stopWatch)
		<-watched
	}
	// Once the worker has stopped nothing more can arrive: each utterance
	// is stored once.
	if err := s.worker.stop(t); err != nil {
		t.Fatalf("worker: %v", err)
	}
	rows := sttRows(t, s, meetingID)
	var errs, words, errsOther int
	var lat []time.Duration
	for i, sp := range speakers {
		got := rows[sp.identity]
		if len(got) != len(sp.lines) {
			t.Errorf("%s: %d rows, want %d: %+v", sp.identity, len(got), len(sp.lines), got)
			continue
		}
		for j, r := range got {
			if r.SpeakerName != sp.name || r.Source != "stt.pocketsphinx" || r.EndMS <= r.StartMS || r.Tokens <= 0 {
				t.Errorf("%s row %d: %+v", sp.identity, j, r)
			}
			if j > 0 && r.StartMS <= got[j-1].EndMS {
				t.Errorf("%s rows out of order: %d..%d then %d..%d", sp.identity, got[j-1].StartMS, got[j-1].EndMS, r.StartMS, r.EndMS)
			}
			e, n := stt.WordErrors(sp.lines[j], r.Text)
			errs += e
			words += n
			// The baseline: the same row scored against another
			// speaker's line.
			o, _ := stt.WordErrors(speakers[(i+1)%len(speakers)].lines[j], r.Text)
			errsOther += o
			t.Logf("%s (%s): %q -> %q [%d..%d ms, %d/%d word errors]", sp.identity, sp.voice, sp.lines[j], r.Text, r.StartMS, r.EndMS, e, n)
			for _, w := range said {
				if w.speaker == sp.identity && w.text == sp.lines[j] {
					lat = append(lat, seen[r.SegmentID].Sub(w.end))
				}
			}
		}
	}
	if words > 0 {
		wer := float64(errs) / float64(words)
		other := float64(errsOther) / float64(words)
		t.Logf("pocketsphinx through LiveKit, %d concurrent speakers: WER %.1f%% over %d words (%.1f%% against another speaker's lines); end of speech -> row p50 %s, p99 %s (%d utterances)",
			len(speakers), 100*wer, words, 100*other, percentile(lat, 0.5).Round(time.Millisecond), percentile(lat, 0.99).Round(time.Millisecond), len(lat))
		// See internal/stt: the model gets two to four words in five wrong
		// on espeak-ng's voices (58-89% through LiveKit here). Audio that
		// arrives damaged scores 100% or more, and a row given to the wrong
		// speaker scores no better against its own lines than against
		// another speaker's.
		if wer >= 1 || wer >= other {
			t.Errorf("WER %.1f%%, want under 100%% and under the %.1f%% of the same rows against another speaker's lines", 100*wer, 100*other)
		}
	}
}

// whisper is an OpenAI-compatible transcription server: it checks each
// upload and answers the text of the utterance it recognises by its audio.
type whisper struct {
	t *testing.T
	// answers are the replies for the utterances, in the order they are
	// first seen; failFirst[i] is how attempt 1 of utterance i fails.
	answers   []string
	failFirst []int
	mu        sync.Mutex
	seen      map[[32]byte]int
	attempts  map[int]int
	durations []time.Duration
}

const failTimeout = -1

func (w *whisper) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	f, _, err := r.FormFile("file")
	if err != nil {
		w.t.Errorf("upload without a file: %v", err)
		http.Error(rw, "no file", http.StatusBadRequest)
		return
	}
	data, _ := io.ReadAll(f)
	pcm, rate, err := audio.ParseWAV(data)
	if err != nil || rate != audio.SampleRate {
		w.t.Errorf("upload is not 16 kHz WAV: rate %d, %v", rate, err)
		http.Error(rw, "bad wav", http.StatusBadRequest)
		return
	}
	if r.FormValue("language") != "en" || r.FormValue("model") != "whisper-test" {
		w.t.Errorf("language %q model %q", r.FormValue("language"), r.FormValue("model"))
	}
	key := sha256.Sum256(data)
	w.mu.Lock()
	i, ok := w.seen[key]
	if !ok {
		i = len(w.seen)
		w.seen[key] = i
		w.durations = append(w.durations, time.Duration(len(pcm))*time.Second/audio.SampleRate)
	}
	w.attempts[i]++
	n := w.attempts[i]
	w.mu.Unlock()
	if i >= len(w.answers) {
		w.t.Errorf("utterance %d: more utterances than spoken", i)
		http.Error(rw, "unexpected", http.StatusBadRequest)
		return
	}
	if n == 1 && i < len(w.failFirst) {
		switch w.failFirst[i] {
		case failTimeout:
			time.Sleep(1500 * time.Millisecond) // beyond MITHUB_STT_TIMEOUT
			return
		case 0:
		default:
			http.Error(rw, `{"error":{"message":"try later"}}`, w.failFirst[i])
			return
		}
	}
	rw.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(rw, `{"text":%q,"language":"english","segments":[{"text":%q,"avg_logprob":-0.2,"no_speech_prob":0.01}]}`, w.answers[i], w.answers[i])
}

func TestOpenAITranscribesMicrophonesAndAutoModeDefersToTranscriptionStreams(t *testing.T) {
	lines := []string{
		"we should ship the release on friday",
		"the database migration is finished",
		"please send the report to the team",
		"MitHub, what did we decide about the launch?",
	}
	speech := make([][]int16, len(lines))
	for i, l := range lines {
		speech[i] = speak(t, strings.ReplaceAll(l, "MitHub", "mit hub"), testenv.Voices[i%len(testenv.Voices)])
	}
	annSpeech := speak(t, "this should only come from the transcriber", "en-us+f3")
	w := &whisper{t: t, answers: lines, seen: map[[32]byte]int{}, attempts: map[int]int{},
		failFirst: []int{http.StatusTooManyRequests, http.StatusInternalServerError, failTimeout}}
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)

	s := newStackWith(t, map[string]string{
		"MITHUB_STT_PROVIDER": "openai", "MITHUB_STT_OPENAI_BASE_URL": srv.URL + "/v1", "MITHUB_STT_OPENAI_MODEL": "whisper-test",
		"MITHUB_STT_LANGUAGE": "en", "MITHUB_STT_WAIT": "1s", "MITHUB_STT_TIMEOUT": "1s",
	})
	const roomName = "audio-openai"
	bob := publishMic(t, s.lk, roomName, "bob", "Bob Reed")
	ann := publishMic(t, s.lk, roomName, "ann", "Ann Lee")
	transcriber := join(t, s.lk, roomName, "stt-agent", "Transcriber", false)
	meetingID := botIn(t, s, roomName, bob.participant)
	// Ann's speech is transcribed by an agent from the start.
	transcriber.say("ann-0", "Good morning, everyone.", true, ann.sid)
	eventually(t, 30*time.Second, "the bot decoding bob's microphone", func() bool { return s.worker.app.Transcribing(bob.sid) })

	// The VAD cut of each line, computed offline, is what must arrive.
	wantDur := make([]time.Duration, len(speech))
	for i, pcm := range speech {
		v := audio.NewVAD(audio.VADConfig{})
		us := v.Write(append(append(pause(500), pcm...), pause(1500)...), 0)
		if len(us) != 1 {
			t.Fatalf("line %d cuts into %d utterances offline, want 1", i, len(us))
		}
		wantDur[i] = time.Duration(len(us[0].PCM)) * time.Second / audio.SampleRate
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		ann.say(pause(500))
		ann.say(annSpeech)
		transcriber.say("ann-1", "This should only come from the transcriber.", true, ann.sid)
		ann.say(pause(1500))
	})
	bob.say(pause(500))
	// The last line is answered at the first attempt: its end of speech
	// -> row is the path's own latency.
	var lastEnd, lastRow time.Time
	lastStored := make(chan struct{})
	for i, pcm := range speech {
		end := bob.say(pcm).Add(-trailingQuiet(t, pcm))
		if i == len(speech)-1 {
			lastEnd = end
			go func() {
				defer close(lastStored)
				for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					if len(sttRows(t, s, meetingID)["bob"]) >= len(lines) {
						lastRow = time.Now()
						return
					}
				}
			}()
		}
		bob.say(pause(1500))
	}
	wg.Wait()
	<-lastStored
	if !lastRow.IsZero() {
		t.Logf("openai (local server answering at once): end of speech -> row %s", lastRow.Sub(lastEnd).Round(time.Millisecond))
	}

	eventually(t, 30*time.Second, "bob's four utterances stored", func() bool { return len(sttRows(t, s, meetingID)["bob"]) >= len(lines) })
	eventually(t, 30*time.Second, "an answer to bob's spoken question", func() bool { return len(bob.chatsNow()) >= 1 })
	rows := sttRows(t, s, meetingID)
	got := rows["bob"]
	if len(got) != len(lines) {
		t.Fatalf("bob: %d rows, want %d: %+v", len(got), len(lines), got)
	}
	for i, r := range got {
		if r.Text != lines[i] || r.SpeakerName != "Bob Reed" || r.Source != "stt.openai" || r.Confidence < 0.8 {
			t.Errorf("row %d = %+v, want %q by Bob Reed from stt.openai", i, r, lines[i])
		}
	}
	if c := bob.chatsNow()[0]; c.attrs["mithub.question_segment_id"] != got[3].SegmentID {
		t.Errorf("answer replies to %q, want the spoken question %s", c.attrs["mithub.question_segment_id"], got[3].SegmentID)
	}
	if len(rows["ann"]) != 0 {
		t.Errorf("ann, whom a transcription stream covers, was transcribed by the bot too: %+v", rows["ann"])
	}
	if s.worker.app.Transcribing(ann.sid) {
		t.Error("the bot decodes ann's microphone although a transcription stream covers her")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.durations) != len(lines) {
		t.Fatalf("the server heard %d distinct utterances, want %d (ann's must not be uploaded)", len(w.durations), len(lines))
	}
	for i, d := range w.durations {
		if diff := d - wantDur[i]; diff < -100*time.Millisecond || diff > 100*time.Millisecond {
			t.Errorf("utterance %d uploaded as %s of audio, want %s", i, d, wantDur[i])
		}
		want := 1
		if i < len(w.failFirst) {
			want = 2 // the first failed and was retried
		}
		if w.attempts[i] != want {
			t.Errorf("utterance %d: %d attempts, want %d", i, w.attempts[i], want)
		}
	}
}

func TestProviderDownLeavesTheRoomsOtherSourcesWorking(t *testing.T) {
	line := speak(t, "this utterance cannot be transcribed", "en-us")
	var n int64
	var nmu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nmu.Lock()
		n++
		nmu.Unlock()
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	s := newStackWith(t, map[string]string{
		"MITHUB_STT_MODE": "always", "MITHUB_STT_PROVIDER": "openai", "MITHUB_STT_OPENAI_BASE_URL": srv.URL + "/v1",
		"MITHUB_STT_RETRIES": "1",
	})
	const roomName = "audio-provider-down"
	bob := publishMic(t, s.lk, roomName, "bob", "Bob Reed")
	amy := join(t, s.lk, roomName, "amy", "Amy Park", false)
	meetingID := botIn(t, s, roomName, bob.participant)
	eventually(t, 30*time.Second, "the bot decoding bob's microphone", func() bool { return s.worker.app.Transcribing(bob.sid) })
	bob.say(pause(300))
	bob.say(line)
	bob.say(pause(1000))
	// The utterance is tried twice (one retry) and given up.
	eventually(t, 30*time.Second, "two attempts at bob's utterance", func() bool {
		nmu.Lock()
		defer nmu.Unlock()
		return n >= 2
	})
	amy.say("amy-1", "The text stream still works.", true, "")
	eventually(t, 20*time.Second, "amy's segment stored", func() bool {
		ts, err := s.st.ListTranscripts(context.Background(), s.worker.app.TenantID(), meetingID, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range ts {
			if tr.SegmentID == "amy-1" {
				return true
			}
		}
		return false
	})
	if rows := sttRows(t, s, meetingID); len(rows) != 0 {
		t.Errorf("rows from a provider that is down: %+v", rows)
	}
	if !s.worker.app.Transcribing(bob.sid) {
		t.Error("the bot stopped decoding bob's microphone after the provider failed")
	}
}
