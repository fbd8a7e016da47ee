package room

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"

	"github.com/mithub/mithub/services/realtime-worker/internal/audio"
	"github.com/mithub/mithub/services/realtime-worker/internal/stt"
	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
)

// When the bot transcribes a participant's microphone itself
// (MITHUB_STT_MODE).
const (
	// HearAuto: when no lk.transcription stream for the participant has
	// arrived within Hearing.Wait of the track's publication, and until one
	// does.
	HearAuto = "auto"
	// HearAlways: every microphone track, whatever else transcribes it.
	HearAlways = "always"
	// HearNever: only the room's transcription streams are stored.
	HearNever = "never"
)

// DefaultHearWait is how long auto mode waits for a transcription stream.
const DefaultHearWait = 3 * time.Second

// utterancesQueued bounds the utterances of one track waiting for the
// recogniser; beyond it the oldest waiting one is dropped and logged.
const utterancesQueued = 32

// Hearing configures the bot's own speech-to-text.
type Hearing struct {
	// Mode is HearAuto, HearAlways or HearNever; a nil Provider is
	// HearNever.
	Mode     string
	Provider stt.Provider
	// Language is the hint sent with each utterance ("en", "ko"; empty:
	// the provider guesses).
	Language string
	// Wait is auto mode's grace period (default DefaultHearWait).
	Wait time.Duration
	VAD  audio.VADConfig
	// Tracks, when set, records the tracks whose audio is being decoded.
	Tracks *Listening
}

// Listening is the set of tracks whose audio the bot decodes, across
// sessions. It is safe for concurrent use.
type Listening struct {
	mu     sync.Mutex
	tracks map[string]bool
}

func (l *Listening) set(sid string, on bool) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tracks == nil {
		l.tracks = map[string]bool{}
	}
	if on {
		l.tracks[sid] = true
	} else {
		delete(l.tracks, sid)
	}
}

// Has says whether the bot decodes the track's audio now.
func (l *Listening) Has(sid string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tracks[sid]
}

func (h Hearing) on() bool { return h.Provider != nil && h.Mode != HearNever && h.Mode != "" }

// trackEvent: a participant published a track.
type trackEvent struct {
	conn int
	pub  *lksdk.RemoteTrackPublication
	rp   *lksdk.RemoteParticipant
}

// trackDueEvent: auto mode's wait for a track is over.
type trackDueEvent struct {
	conn int
	sid  string
}

func (trackEvent) isEvent()    {}
func (trackDueEvent) isEvent() {}

// listener is the bot transcribing one track.
type listener struct {
	identity string
	pub      *lksdk.RemoteTrackPublication
	cancel   context.CancelFunc
}

// hearState is the session's bookkeeping of transcribed tracks; the
// session goroutine owns it.
type hearState struct {
	// external are the participants an lk.transcription stream or packet
	// has transcribed.
	external map[string]bool
	// pending are the tracks auto mode waits on, by sid.
	pending map[string]trackEvent
	// listening are the tracks being transcribed, by sid.
	listening map[string]*listener
}

func newHearState() hearState {
	return hearState{external: map[string]bool{}, pending: map[string]trackEvent{}, listening: map[string]*listener{}}
}

// hearCallbacks sets the connection's callbacks that feed the bot's own
// transcription.
func (s *Session) hearCallbacks(ctx context.Context, cb *lksdk.RoomCallback, conn int, push func(event)) {
	h := s.deps.Settings.Hearing
	if !h.on() {
		return
	}
	cb.OnTrackPublished = func(pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
		if pub != nil && rp != nil {
			push(trackEvent{conn: conn, pub: pub, rp: rp})
		}
	}
	cb.OnTrackSubscribed = func(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
		if track == nil || pub == nil || rp == nil || track.Kind() != webrtc.RTPCodecTypeAudio {
			return
		}
		go s.listen(ctx, track, pub, transcript.Participant{Identity: rp.Identity(), Name: rp.Name()})
	}
}

// onTrack decides whether a published track is to be transcribed: a
// microphone of a participant that is not an agent.
func (s *Session) onTrack(e trackEvent) {
	h := s.deps.Settings.Hearing
	if e.conn != s.conn || e.rp.Kind() == lksdk.ParticipantAgent || e.rp.Identity() == s.deps.Settings.Identity ||
		e.pub.Kind() != lksdk.TrackKindAudio || e.pub.Source() == livekit.TrackSource_SCREEN_SHARE_AUDIO {
		return
	}
	if h.Mode == HearAlways {
		s.subscribe(e)
		return
	}
	if s.hear.external[e.rp.Identity()] {
		return
	}
	s.hear.pending[e.pub.SID()] = e
	wait := h.Wait
	if wait <= 0 {
		wait = DefaultHearWait
	}
	conn, sid := e.conn, e.pub.SID()
	time.AfterFunc(wait, func() {
		select {
		case s.events <- trackDueEvent{conn: conn, sid: sid}:
		default:
		}
	})
}

// onTrackDue subscribes to a track auto mode waited on, unless a
// transcription stream for its participant came meanwhile.
func (s *Session) onTrackDue(e trackDueEvent) {
	te, ok := s.hear.pending[e.sid]
	delete(s.hear.pending, e.sid)
	if !ok || e.conn != s.conn || s.hear.external[te.rp.Identity()] {
		return
	}
	s.log.Info("no transcription stream for the participant's microphone: transcribing it",
		"participant", te.rp.Identity(), "track", e.sid, "provider", s.deps.Settings.Hearing.Provider.Name())
	s.subscribe(te)
}

func (s *Session) subscribe(e trackEvent) {
	sid := e.pub.SID()
	if _, ok := s.hear.listening[sid]; ok {
		return
	}
	if err := e.pub.SetSubscribed(true); err != nil {
		s.log.Warn("subscribe to microphone track", "participant", e.rp.Identity(), "track", sid, "err", err)
		return
	}
	s.hear.listening[sid] = &listener{identity: e.rp.Identity(), pub: e.pub}
}

// heardExternally notes that a room source transcribes seg's speaker; in
// auto mode the bot stops transcribing that participant itself.
func (s *Session) heardExternally(seg transcript.Segment) {
	h := s.deps.Settings.Hearing
	if !h.on() || h.Mode != HearAuto || strings.HasPrefix(seg.Source, transcript.SourceSTT) ||
		seg.Source == transcript.SourceReplay || seg.SpeakerID == "" || s.hear.external[seg.SpeakerID] {
		return
	}
	s.hear.external[seg.SpeakerID] = true
	for sid, l := range s.hear.listening {
		if l.identity != seg.SpeakerID {
			continue
		}
		s.log.Info("a transcription stream covers the participant now: no longer transcribing the microphone",
			"participant", l.identity, "track", sid)
		if err := l.pub.SetSubscribed(false); err != nil {
			s.log.Warn("unsubscribe from microphone track", "track", sid, "err", err)
		}
		delete(s.hear.listening, sid)
	}
}

// heardByBot says whether the session still transcribes a participant
// itself; utterances finished after a transcription stream took over are
// dropped.
func (s *Session) heardByBot(identity string) bool {
	return !s.hear.external[identity] || s.deps.Settings.Hearing.Mode == HearAlways
}

// utterance is one cut of speech waiting for the recogniser.
type utterance struct {
	u audio.Utterance
	// base is the meeting time of stream position 0, in ms.
	base int64
	// stream, when set, has decoded the utterance as it was spoken.
	stream stt.Stream
}

// listen decodes one subscribed audio track, cuts it into utterances and
// hands them, in order, to the recogniser; recognised text becomes final
// segments. It returns when the track ends (unsubscribed, unpublished,
// the connection closed).
func (s *Session) listen(ctx context.Context, track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, who transcript.Participant) {
	h := s.deps.Settings.Hearing
	sid := pub.SID()
	log := s.log.With("participant", who.Identity, "track", sid)
	if c := track.Codec(); !strings.EqualFold(c.MimeType, webrtc.MimeTypeOpus) {
		log.Warn("microphone track not transcribed: its codec is not Opus", "codec", c.MimeType)
		return
	}
	dec, err := audio.NewDecoder()
	if err != nil {
		log.Warn("microphone track not transcribed", "err", err)
		return
	}
	defer dec.Close()
	queue := make(chan utterance, utterancesQueued)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for u := range queue {
			s.recognise(ctx, log, h, sid, who, u)
		}
	}()
	defer func() {
		close(queue)
		<-done
	}()
	enqueue := func(u utterance) {
		for {
			select {
			case queue <- u:
				return
			default:
			}
			select {
			case old := <-queue:
				if old.stream != nil {
					old.stream.Abort()
				}
				log.Warn("utterance dropped: the recogniser is behind", "start_ms", old.base+old.u.StartMS())
			default:
			}
		}
	}
	vad := audio.NewVAD(h.VAD)
	live := &liveDecode{log: log}
	if st, ok := h.Provider.(stt.Streamer); ok {
		live.streamer = st
	}
	var (
		first     = true
		base      int64
		ext       int64 // extended RTP timestamp of the last packet
		lastTS    uint32
		badPkts   int
		lastFrame = audio.FrameSamples
	)
	for {
		pkt, _, err := track.ReadRTP()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				log.Debug("microphone track ended", "err", err)
			}
			break
		}
		if len(pkt.Payload) == 0 {
			continue
		}
		if first {
			first = false
			base = max(time.Since(s.meeting.StartedAt).Milliseconds(), 0)
			lastTS = pkt.Timestamp
			log.Info("transcribing microphone", "provider", h.Provider.Name())
			h.Tracks.set(sid, true)
			defer h.Tracks.set(sid, false)
		}
		// Unwrap the 32-bit timestamp; a packet from the past (reordered)
		// is decoded where it belongs in the stream only if it is new.
		d := int64(int32(pkt.Timestamp - lastTS))
		if d < 0 {
			continue
		}
		ext += d
		lastTS = pkt.Timestamp
		pos := ext * audio.SampleRate / audio.OpusClockRate
		pcm, err := dec.Decode(pkt.Payload, lastFrame)
		if err != nil {
			if badPkts++; badPkts == 1 || badPkts%500 == 0 {
				log.Warn("undecodable audio packets skipped", "packets", badPkts, "err", err)
			}
			continue
		}
		lastFrame = len(pcm)
		for _, u := range vad.Write(pcm, pos) {
			enqueue(live.finish(u, base))
		}
		live.feed(vad)
	}
	if u, ok := vad.Flush(); ok {
		enqueue(live.finish(u, base))
	}
	live.abort()
}

// liveDecode feeds the utterance in progress to a streaming recogniser,
// so that when it ends only the last part is left to decode. Without a
// free decoder the utterance is transcribed whole at its end.
type liveDecode struct {
	streamer stt.Streamer // nil: the provider does not stream
	log      *slog.Logger
	cur      stt.Stream
	start    int64 // stream position of cur's first sample
	fed      int   // samples of the utterance written to cur
}

// feed writes what the VAD added to the utterance in progress.
func (l *liveDecode) feed(vad *audio.VAD) {
	if l.streamer == nil {
		return
	}
	pcm, start, ok := vad.Current()
	if l.cur != nil && (!ok || start != l.start) {
		l.abort() // the utterance was dropped (too short)
	}
	if !ok {
		return
	}
	if l.cur == nil {
		s, ok, err := l.streamer.Begin()
		if err != nil {
			l.log.Warn("cannot decode while spoken", "err", err)
		}
		if !ok {
			return
		}
		l.cur, l.start, l.fed = s, start, 0
	}
	if len(pcm) > l.fed {
		if err := l.cur.Write(pcm[l.fed:]); err != nil {
			l.log.Warn("decoding while spoken failed", "err", err)
		}
		l.fed = len(pcm)
	}
}

// finish hands a completed utterance over, with its stream if it is the
// one being decoded.
func (l *liveDecode) finish(u audio.Utterance, base int64) utterance {
	out := utterance{u: u, base: base}
	if l.cur == nil || u.PCMStart != l.start || l.fed > len(u.PCM) {
		l.abort()
		return out
	}
	if err := l.cur.Write(u.PCM[l.fed:]); err != nil {
		l.abort()
		return out
	}
	out.stream, l.cur = l.cur, nil
	return out
}

func (l *liveDecode) abort() {
	if l.cur != nil {
		l.cur.Abort()
		l.cur = nil
	}
}

// recognise transcribes one utterance and hands the segment to the
// session. Failures are logged and the utterance skipped: the room's
// other sources go on.
func (s *Session) recognise(ctx context.Context, log *slog.Logger, h Hearing, sid string, who transcript.Participant, u utterance) {
	start, end := u.base+u.u.StartMS(), u.base+u.u.EndMS()
	id := sttSegmentID(s.room, sid, start)
	began := time.Now()
	var res stt.Result
	var err error
	if u.stream != nil {
		res, err = u.stream.End()
	} else {
		res, err = h.Provider.Transcribe(ctx, stt.Request{PCM: u.u.PCM, Language: h.Language, ID: id})
	}
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("utterance not transcribed", "segment_id", id, "start_ms", start, "err", err)
		}
		return
	}
	log.Debug("utterance transcribed", "segment_id", id, "audio_ms", end-start, "took_ms", time.Since(began).Milliseconds(),
		"while_spoken", u.stream != nil, "text", res.Text)
	if strings.TrimSpace(res.Text) == "" {
		return
	}
	lang := res.Language
	if lang == "" {
		lang = h.Language
	}
	seg := transcript.Segment{
		ID: id, SpeakerID: who.Identity, SpeakerName: who.Name, Text: strings.TrimSpace(res.Text), Final: true,
		StartMS: start, EndMS: end, Confidence: res.Confidence, Language: lang,
		Source: transcript.SourceSTT + h.Provider.Name(), Received: time.Now(),
	}
	sendHeard(s.events, segmentEvent{seg: seg}, ctx.Done())
}

// sttSegmentID names an utterance by room, track and start: the same
// utterance transcribed again (a retry, a restart reading the same audio)
// keeps its id. A long room name is hashed to keep the id short.
func sttSegmentID(room, trackSID string, startMS int64) string {
	if len(room) > 64 {
		sum := sha256.Sum256([]byte(room))
		room = hex.EncodeToString(sum[:12])
	}
	return fmt.Sprintf("stt:%s:%s:%d", room, trackSID, startMS)
}
