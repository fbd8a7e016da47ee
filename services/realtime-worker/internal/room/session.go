package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/livekit/protocol/auth"
	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/askmode"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tokens"
	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
	"github.com/mithub/mithub/services/realtime-worker/internal/wake"
)

// Chat topics the bot answers on.
const (
	// TopicChat is the text stream topic of LiveKit chat.
	TopicChat = "lk.chat"
	// TopicLegacyChat is the data packet topic older LiveKit clients
	// read chat messages from.
	TopicLegacyChat = "lk-chat-topic"
	// AttrQuestionSegment names the segment a chat answer replies to.
	AttrQuestionSegment = "mithub.question_segment_id"
)

// Timing of a session.
const (
	reconnectMin = 250 * time.Millisecond
	reconnectMax = 5 * time.Second
	// rejoinWindow is how long after a lost connection the bot waits for
	// the room to exist again (people rejoining after a server restart)
	// before it ends the meeting.
	rejoinWindow = 2 * time.Minute

	eventsLen = 1024
	tokenTTL  = 6 * time.Hour
	// streamStall is how long a transcription text stream may stay open
	// before the bot logs it: a segment is a few hundred bytes, sent in
	// one chunk, so a stream still open then has lost its trailer.
	streamStall = 10 * time.Second
	// addTimeout bounds the hand-over of one segment to the writer, which
	// waits only while its queue is full.
	addTimeout = 5 * time.Second
	// drainTimeout bounds the storing of the segments still queued when a
	// session ends.
	drainTimeout = 10 * time.Second
)

// Writer is where final segments go.
type Writer interface {
	Add(ctx context.Context, tenantID, meetingID string, u store.Utterance) error
	Flush(ctx context.Context) (bool, error)
}

// API is the part of agent-api a session calls.
type API interface {
	AskStream(ctx context.Context, meetingID string, req apiclient.AskRequest, fn func(apiclient.AskEvent) error) (apiclient.AskResult, error)
	Sync(ctx context.Context, meetingID string) (apiclient.SyncResult, error)
	RecordPresence(ctx context.Context, meetingID string, p apiclient.Presence) (apiclient.PresenceResult, error)
}

// Settings are what every session shares.
type Settings struct {
	LiveKitURL, APIKey, APISecret string
	// Identity and Name are the bot's participant identity and name.
	Identity, Name string
	Wake           wake.Config
	AskTimeout     time.Duration
	// Hearing is the bot's own speech-to-text of microphone tracks.
	Hearing Hearing
}

// Deps are a session's collaborators.
type Deps struct {
	Settings Settings
	Writer   Writer
	API      API
	Tokens   tokens.Counter
	Log      *slog.Logger
}

// Session is the bot in one room, recording into one meeting.
type Session struct {
	deps     Deps
	room     string
	tenantID string
	meeting  store.Meeting
	log      *slog.Logger
	events   chan event
	detector *wake.Detector
	roster   *roster
	replay   []transcript.Segment
	replayRt float64
	threads  map[string]string // speaker → ask thread
	// conn numbers the connections, so a late event of an earlier one is
	// recognised.
	conn    int
	answers sync.WaitGroup
	// queue orders questions asked within a speaker's cooldown after the
	// answers in progress.
	queue answerQueue
	// hear tracks the microphones the bot transcribes itself.
	hear hearState
}

// newSession prepares the session of room recording into meeting.
func newSession(deps Deps, room, tenantID string, meeting store.Meeting) *Session {
	log := deps.Log.With("room", room, "meeting_id", meeting.ID)
	det, err := wake.NewDetector(deps.Settings.Wake)
	if err != nil {
		// The configuration is checked at start; this is a fallback.
		log.Error("wake words unusable, using the defaults", "err", err)
		det, _ = wake.NewDetector(wake.Config{FollowUp: deps.Settings.Wake.FollowUp, Cooldown: deps.Settings.Wake.Cooldown})
	}
	return &Session{
		deps: deps, room: room, tenantID: tenantID, meeting: meeting,
		log:      log,
		events:   make(chan event, eventsLen),
		detector: det,
		roster:   newRoster(serverList(deps.Settings, room)),
		threads:  map[string]string{},
		hear:     newHearState(),
	}
}

// outcome is how a session ended.
type outcome int

const (
	// stopped: the worker is shutting down or another bot took over.
	stopped outcome = iota
	// roomEnded: the room closed; the meeting is over.
	roomEnded
)

// run owns the session until ctx ends or the room closes.
func (s *Session) run(ctx context.Context) outcome {
	defer s.answers.Wait()
	if len(s.replay) > 0 {
		go s.runReplay(ctx)
	}
	backoff := reconnectMin
	var lost time.Time // when a joined connection was lost
	for attempt := 1; ; attempt++ {
		// After a loss, join only a room that exists again: joining would
		// create it, and LiveKit closes a room that only agents are in, so
		// the bot would end the meeting before anyone is back.
		if !lost.IsZero() && s.roomGone(ctx) {
			if time.Since(lost) > rejoinWindow {
				s.log.Info("room not back after the connection was lost", "waited", rejoinWindow.String())
				return roomEnded
			}
		} else if lk, closed, err := s.connect(ctx); err == nil {
			s.log.Info("joined room", "attempt", attempt)
			// A connection whose sending side never comes up is dead (the
			// SDK only retries connections that were up once): rejoin.
			go func(conn int) {
				if err := warmUp(lk, s.deps.Settings.Identity); err != nil {
					select {
					case s.events <- reconnectingEvent{conn: conn, cause: "connection never came up: " + err.Error()}:
					case <-closed:
					}
				}
			}(s.conn)
			backoff = reconnectMin
			out, again := s.serve(ctx, lk, closed)
			if !again {
				return out
			}
			lost = time.Now()
		} else {
			s.log.Warn("join room failed, retrying", "attempt", attempt, "retry_in", backoff.String(), "err", err)
		}
		select {
		case <-ctx.Done():
			return stopped
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, reconnectMax)
	}
}

// connect joins the room with callbacks that feed s.events. Callbacks of
// the connection give up once the returned channel is closed, except those
// that carry heard segments: they give up only when ctx (the session) ends.
func (s *Session) connect(ctx context.Context) (*lksdk.Room, chan struct{}, error) {
	set := s.deps.Settings
	closed := make(chan struct{})
	push := func(e event) { send(s.events, e, closed) }
	pushHeard := func(e event) { sendHeard(s.events, e, ctx.Done()) }
	cb := lksdk.NewRoomCallback()
	s.conn++
	conn := s.conn
	cb.OnDisconnectedWithReason = func(reason lksdk.DisconnectionReason) {
		push(disconnectedEvent{conn: conn, reason: reason})
	}
	cb.OnReconnecting = func() { push(reconnectingEvent{conn: conn, cause: "the SDK is reconnecting"}) }
	presence := func(kind string) func(*lksdk.RemoteParticipant) {
		return func(p *lksdk.RemoteParticipant) {
			if p != nil && p.Kind() != lksdk.ParticipantAgent {
				push(presenceEvent{identity: p.Identity(), kind: kind, at: time.Now()})
			}
		}
	}
	cb.OnParticipantConnected = presence(apiclient.PresenceJoined)
	cb.OnParticipantDisconnected = presence(apiclient.PresenceLeft)
	cb.OnTranscriptionReceived = func(segs []*lksdk.TranscriptionSegment, p lksdk.Participant, _ lksdk.TrackPublication) {
		if p == nil {
			return
		}
		pushHeard(transcriptionEvent{identity: p.Identity(), name: p.Name(), segments: segs})
	}
	// The tracks of an earlier connection ended with it.
	s.hear.pending, s.hear.listening = map[string]trackEvent{}, map[string]*listener{}
	s.hearCallbacks(ctx, cb, conn, push)
	lk := lksdk.NewRoom(cb)
	lk.SetLogger(sdkLogger(s.log))
	if err := lk.RegisterTextStreamHandler(transcript.TopicTranscription, func(r *lksdk.TextStreamReader, identity string) {
		stall := time.AfterFunc(streamStall, func() {
			s.log.Warn("transcription stream still open", "stream_id", r.Info.Id, "sender", identity, "after", streamStall.String())
		})
		text := r.ReadAll()
		stall.Stop()
		// ReadAll also returns when the connection closes mid-stream: the
		// segment is kept, and its shortfall logged.
		if size := r.Info.Size; size != nil && uint64(len(text)) != *size {
			s.log.Warn("transcription stream incomplete", "stream_id", r.Info.Id, "sender", identity,
				"announced_bytes", *size, "received_bytes", len(text))
		}
		attrs := make(map[string]string, len(r.Info.Attributes))
		for k, v := range r.Info.Attributes {
			attrs[k] = v
		}
		pushHeard(streamEvent{streamID: r.Info.Id, attrs: attrs, text: text, sender: identity})
	}); err != nil {
		return nil, nil, fmt.Errorf("register %s handler: %w", transcript.TopicTranscription, err)
	}
	at := auth.NewAccessToken(set.APIKey, set.APISecret).
		SetIdentity(set.Identity).SetName(set.Name).
		SetKind(livekit.ParticipantInfo_AGENT).
		SetValidFor(tokenTTL).
		SetVideoGrant(&auth.VideoGrant{RoomJoin: true, Room: s.room, CanPublish: ptr(false), CanPublishData: ptr(true), CanSubscribe: ptr(true)})
	token, err := at.ToJWT()
	if err != nil {
		return nil, nil, fmt.Errorf("sign token: %w", err)
	}
	if err := lk.JoinWithToken(set.LiveKitURL, token, lksdk.WithAutoSubscribe(false)); err != nil {
		close(closed)
		return nil, nil, err
	}
	return lk, closed, nil
}

func ptr[T any](v T) *T { return &v }

// askMode is a catch-up for "what did I miss?" and an answer otherwise.
func askMode(question string) askmode.Mode { return askmode.OfQuestion(question) }

// warmUp connects the publishing side of the bot's connection, which the
// SDK negotiates on the first send (about a second), so that the first
// answer does not pay for it. The packet is addressed to the bot itself,
// so nobody receives it.
func warmUp(lk *lksdk.Room, identity string) error {
	return lk.LocalParticipant.PublishDataPacket(lksdk.UserData([]byte{}),
		lksdk.WithDataPublishDestination([]string{identity}), lksdk.WithDataPublishReliable(true))
}

// serve handles events of one connection. It returns how the session
// ended, or again=true when it should reconnect.
func (s *Session) serve(ctx context.Context, lk *lksdk.Room, closed chan struct{}) (outcome, bool) {
	defer close(closed)
	for {
		select {
		case <-ctx.Done():
			// Go's select picks at random among ready cases: segments
			// queued before the stop are stored before leaving.
			s.drain(ctx, lk)
			lk.Disconnect()
			return stopped, false
		case e := <-s.events:
			switch e := e.(type) {
			case reconnectingEvent:
				// The SDK would try to resume the dropped connection for
				// over a minute, and may resume into a restarted server
				// that no longer knows the bot (seen: visible in the room,
				// deaf to data). The bot has no media to keep, so it joins
				// afresh instead.
				if e.conn != s.conn {
					continue
				}
				lk.Disconnect()
				s.log.Warn("connection lost, rejoining", "cause", e.cause)
				return stopped, true
			case disconnectedEvent:
				if e.conn != s.conn {
					continue // from an earlier connection
				}
				// Segments heard before the end but queued behind it are
				// stored before the session ends; on a reconnect the next
				// connection stores them.
				switch e.reason {
				case lksdk.RoomClosed:
					s.log.Info("room closed")
					s.drain(ctx, lk)
					return roomEnded, false
				case lksdk.ParticipantRemoved, lksdk.DuplicateIdentity, lksdk.LeaveRequested:
					s.log.Info("left room", "reason", string(e.reason))
					s.drain(ctx, lk)
					return stopped, false
				}
				// The SDK reports a deleted room as "other reasons";
				// rejoining would create the room again.
				if e.reason == lksdk.OtherReason && s.roomGone(ctx) {
					s.log.Info("room deleted")
					s.drain(ctx, lk)
					return roomEnded, false
				}
				s.log.Warn("connection dropped, reconnecting", "reason", string(e.reason))
				return stopped, true
			case streamEvent, transcriptionEvent, segmentEvent:
				for _, seg := range s.heard(lk, e) {
					if strings.HasPrefix(seg.Source, transcript.SourceSTT) {
						if !s.heardByBot(seg.SpeakerID) {
							s.log.Info("utterance dropped: a transcription stream covers the participant now", "segment_id", seg.ID)
							continue
						}
					} else {
						s.heardExternally(seg)
					}
					s.handle(ctx, lk, seg)
				}
			case trackEvent:
				s.onTrack(e)
			case trackDueEvent:
				s.onTrackDue(e)
			case threadEvent:
				s.threads[e.speaker] = e.thread
			case presenceEvent:
				s.answers.Go(func() { s.recordPresence(ctx, e) })
			}
		}
	}
}

// heard returns the segments an event carries, if any. Senders and
// track owners the connection does not know yet are looked up at the
// server.
func (s *Session) heard(lk *lksdk.Room, e event) []transcript.Segment {
	switch e := e.(type) {
	case streamEvent:
		sender, err := s.roster.participant(lk, e.sender)
		if err != nil {
			s.log.Warn("sender unknown to the bot and the server could not be asked", "sender", e.sender, "err", err)
		}
		owner := func(sid string) (transcript.Participant, bool) {
			p, ok, err := s.roster.trackOwner(lk, sid)
			if err != nil {
				s.log.Warn("transcribed track unknown to the bot and the server could not be asked", "track", sid, "err", err)
			}
			if !ok {
				s.log.Warn("transcribed track has no known owner; segment attributed to its sender",
					"track", sid, "sender", e.sender, "stream_id", e.streamID)
			}
			return p, ok
		}
		return []transcript.Segment{transcript.FromTextStream(e.streamID, e.attrs, e.text, sender, owner, time.Now())}
	case transcriptionEvent:
		out := make([]transcript.Segment, 0, len(e.segments))
		for _, ts := range e.segments {
			out = append(out, transcript.FromTranscription(ts, transcript.Participant{Identity: e.identity, Name: e.name}, time.Now()))
		}
		return out
	case segmentEvent:
		return []transcript.Segment{e.seg}
	}
	return nil
}

// drain stores the heard segments still queued when the session ends,
// without answering them; other queued events are dropped. After
// drainTimeout it stops, and logs what it left.
func (s *Session) drain(ctx context.Context, lk *lksdk.Room) {
	deadline := time.Now().Add(drainTimeout)
	stored := 0
	for {
		select {
		case e := <-s.events:
			for _, seg := range s.heard(lk, e) {
				if time.Now().After(deadline) {
					s.log.Warn("segment dropped: the session ended and the writer did not take it in time",
						"segment_id", seg.ID, "queued", len(s.events))
					continue
				}
				if _, ok := s.record(ctx, seg); ok {
					stored++
				}
			}
		default:
			if stored > 0 {
				s.log.Info("stored the segments queued at the end of the session", "segments", stored)
			}
			return
		}
	}
}

// roomGone asks the server whether the room still exists; unknown
// answers count as "exists".
func (s *Session) roomGone(ctx context.Context) bool {
	set := s.deps.Settings
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rs := lksdk.NewRoomServiceClient(set.LiveKitURL, set.APIKey, set.APISecret)
	res, err := rs.ListRooms(ctx, &livekit.ListRoomsRequest{Names: []string{s.room}})
	if err != nil {
		s.log.Warn("check room after disconnect", "err", err)
		return false
	}
	return len(res.GetRooms()) == 0
}

// participantOf names a sender by identity.
func participantOf(lk *lksdk.Room, identity string) transcript.Participant {
	p := transcript.Participant{Identity: identity}
	if lk == nil {
		return p
	}
	if rp := lk.GetParticipantByIdentity(identity); rp != nil {
		p.Name = rp.Name()
	}
	return p
}

// trackOwner finds the remote participant that published a track.
func trackOwner(lk *lksdk.Room, trackSID string) (transcript.Participant, bool) {
	if lk == nil {
		return transcript.Participant{}, false
	}
	for _, rp := range lk.GetRemoteParticipants() {
		for _, pub := range rp.TrackPublications() {
			if pub.SID() == trackSID {
				return transcript.Participant{Identity: rp.Identity(), Name: rp.Name()}, true
			}
		}
	}
	return transcript.Participant{}, false
}

// handle stores one final segment and answers it if it is a question.
func (s *Session) handle(ctx context.Context, lk *lksdk.Room, seg transcript.Segment) {
	seg, ok := s.record(ctx, seg)
	if !ok {
		return
	}
	q, ok := s.detector.Observe(seg.ID, seg.SpeakerID, seg.SpeakerName, seg.Text, seg.Received)
	if !ok {
		return
	}
	if q.Repeat {
		s.log.Info("question repeated within the cooldown: the answer to the first one covers it",
			"segment_id", q.SegmentID, "speaker_id", q.SpeakerID, "question", q.Text)
		return
	}
	if q.Queued {
		s.log.Info("question within the cooldown queued until the answers in progress finish",
			"segment_id", q.SegmentID, "speaker_id", q.SpeakerID, "question", q.Text, "cooldown", s.deps.Settings.Wake.Cooldown.String())
	}
	thread := s.threads[q.SpeakerID]
	s.queue.add(&s.answers, q.Queued, ctx.Done(), func() { s.answer(ctx, lk, q, thread) })
}

// answerQueue runs answers: at once, or — queued — once every answer
// started before has finished. It is used from the session goroutine.
type answerQueue struct {
	// last is closed when the latest answer and all before it are done.
	last chan struct{}
}

// add starts fn on wg, after the answers before it when queued; a queued
// fn does not run once stop is closed.
func (q *answerQueue) add(wg *sync.WaitGroup, queued bool, stop <-chan struct{}, fn func()) {
	prev, done := q.last, make(chan struct{})
	q.last = done
	wg.Go(func() {
		defer close(done)
		wait := func() bool {
			if prev == nil {
				return true
			}
			select {
			case <-prev:
			case <-stop:
				return false
			}
			// A stop that came first wins over the finish.
			select {
			case <-stop:
				return false
			default:
				return true
			}
		}
		if queued {
			if wait() {
				fn()
			}
			return
		}
		fn()
		// done means "this and every earlier answer finished".
		if prev != nil {
			<-prev
		}
	})
}

// record queues a final segment for PostgreSQL and reports whether it
// did, with the segment as stored: invalid bytes replaced, and, when its
// text was too long for one row, split into parts (the first part's id is
// returned, with the whole text). Interim segments and the bot's own are
// not stored; a final one without text is logged.
func (s *Session) record(ctx context.Context, seg transcript.Segment) (transcript.Segment, bool) {
	if !seg.Final || seg.SpeakerID == s.deps.Settings.Identity {
		return seg, false
	}
	if seg.Text == "" {
		s.log.Info("final segment without text skipped", "segment_id", seg.ID, "speaker_id", seg.SpeakerID, "source", seg.Source)
		return seg, false
	}
	if seg.StartMS == 0 && seg.EndMS == 0 {
		at := max(seg.Received.Sub(s.meeting.StartedAt).Milliseconds(), 0)
		seg.StartMS, seg.EndMS = at, at
	}
	parts, fixed := transcript.Storable(seg)
	if fixed.Replaced > 0 {
		s.log.Warn("segment had invalid UTF-8 or NUL bytes; replaced with U+FFFD and stored",
			"segment_id", parts[0].ID, "speaker_id", parts[0].SpeakerID, "replaced", fixed.Replaced)
	}
	if fixed.Parts > 1 {
		s.log.Warn("segment longer than one transcript row; stored as consecutive parts",
			"segment_id", seg.ID, "bytes", len(seg.Text), "parts", fixed.Parts,
			"first_id", parts[0].ID, "last_id", parts[len(parts)-1].ID)
	}
	stored := 0
	for _, p := range parts {
		if s.store(ctx, p) {
			stored++
		}
	}
	whole := parts[0]
	if len(parts) > 1 {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		whole.Text = b.String()
	}
	return whole, stored > 0
}

// store validates one storable segment and hands it to the writer.
func (s *Session) store(ctx context.Context, seg transcript.Segment) bool {
	u := store.Utterance{
		SegmentID: seg.ID, SpeakerID: seg.SpeakerID, SpeakerName: seg.SpeakerName, Text: seg.Text,
		StartMS: seg.StartMS, EndMS: seg.EndMS, Confidence: seg.Confidence, Source: seg.Source,
	}
	if s.deps.Tokens != nil {
		u.Tokens = s.deps.Tokens.Count(u.Text)
	}
	if err := u.Validate(); err != nil {
		s.log.Warn("segment skipped", "segment_id", seg.ID, "err", err)
		return false
	}
	// A segment heard is stored even when the session is stopping: the
	// hand-over outlives the session's context, within addTimeout.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), addTimeout)
	defer cancel()
	if err := s.deps.Writer.Add(ctx, s.tenantID, s.meeting.ID, u); err != nil {
		s.log.Warn("segment not queued", "segment_id", seg.ID, "err", err)
		return false
	}
	return true
}

// presenceTimeout bounds the retries of one presence event.
const presenceTimeout = time.Minute

// recordPresence tells agent-api that a participant joined or left, so a
// later "what did I miss?" starts where they left. It is stamped with the
// time the room reported it, which makes retries idempotent.
func (s *Session) recordPresence(ctx context.Context, e presenceEvent) {
	ctx, cancel := context.WithTimeout(ctx, presenceTimeout)
	defer cancel()
	at := max(e.at.Sub(s.meeting.StartedAt).Milliseconds(), 0)
	if _, err := s.deps.API.RecordPresence(ctx, s.meeting.ID, apiclient.Presence{
		ParticipantID: e.identity, Event: e.kind, AtMS: &at,
	}); err != nil {
		s.log.Warn("presence not recorded", "participant", e.identity, "event", e.kind, "err", err)
	}
}

// answer asks agent-api and streams the answer into the room.
func (s *Session) answer(ctx context.Context, lk *lksdk.Room, q wake.Question, thread string) {
	ctx, cancel := context.WithTimeout(ctx, s.deps.Settings.AskTimeout)
	defer cancel()
	log := s.log.With("segment_id", q.SegmentID, "speaker_id", q.SpeakerID)
	began := time.Now()
	var synced, firstToken time.Duration
	// The question and what was said before it must be in the context.
	if _, err := s.deps.Writer.Flush(ctx); err != nil {
		log.Warn("flush before ask", "err", err)
	}
	if _, err := s.deps.API.Sync(ctx, s.meeting.ID); err != nil {
		log.Warn("sync before ask", "err", err)
	}
	synced = time.Since(began)
	w, err := openChatStream(lk.LocalParticipant, TopicChat, map[string]string{AttrQuestionSegment: q.SegmentID})
	if err != nil {
		log.Warn("open chat stream", "err", err)
		return
	}
	var full strings.Builder
	res, err := s.deps.API.AskStream(ctx, s.meeting.ID, apiclient.AskRequest{
		Question: q.Text, AskerID: q.SpeakerID, AskerName: q.SpeakerName, ThreadID: thread, Mode: askMode(q.Text),
		QuestionSegmentID: q.SegmentID,
	}, func(ev apiclient.AskEvent) error {
		if ev.Token == "" {
			return nil
		}
		if full.Len() == 0 {
			firstToken = time.Since(began)
		}
		full.WriteString(ev.Token)
		return w.write(ev.Token)
	})
	if err != nil {
		log.Warn("ask failed", "err", err)
		if full.Len() == 0 {
			msg := "Sorry, I could not answer that right now."
			_ = w.write(msg)
			full.WriteString(msg)
		}
	}
	if cerr := w.close(); cerr != nil {
		log.Warn("close chat stream", "err", cerr)
	}
	if err == nil && res.ThreadID != "" {
		s.rememberThread(q.SpeakerID, res.ThreadID)
	}
	legacy, _ := json.Marshal(map[string]any{"id": w.id, "timestamp": time.Now().UnixMilli(), "message": full.String()})
	if perr := lk.LocalParticipant.PublishDataPacket(lksdk.UserData(legacy),
		lksdk.WithDataPublishTopic(TopicLegacyChat), lksdk.WithDataPublishReliable(true)); perr != nil {
		log.Warn("publish legacy chat packet", "err", perr)
	}
	if err == nil {
		log.Info("answered", "question", q.Text, "citations", len(res.Citations),
			"synced_ms", synced.Milliseconds(), "first_token_ms", firstToken.Milliseconds(), "total_ms", time.Since(began).Milliseconds())
	}
}

// rememberThread keeps a speaker's ask thread; the session goroutine reads
// it for the next question.
func (s *Session) rememberThread(speaker, thread string) {
	select {
	case s.events <- threadEvent{speaker: speaker, thread: thread}:
	default:
	}
}

// runReplay feeds the replay segments into the session.
func (s *Session) runReplay(ctx context.Context) {
	out := make(chan transcript.Segment)
	go func() {
		if err := transcript.Replay(ctx, s.replay, s.replayRt, out); err != nil && !errors.Is(err, context.Canceled) {
			s.log.Warn("replay stopped", "err", err)
		}
		close(out)
	}()
	for seg := range out {
		select {
		case s.events <- segmentEvent{seg: seg}:
		case <-ctx.Done():
			return
		}
	}
	s.log.Info("replay finished", "segments", len(s.replay))
}
