package app_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/hibiken/asynq"
	"github.com/livekit/protocol/livekit"
	protologger "github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"

	"github.com/mithub/mithub/pkg/apiclient"
	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/tasks"
	required "github.com/mithub/mithub/pkg/testenv"
	"github.com/mithub/mithub/services/realtime-worker/internal/config"
	"github.com/mithub/mithub/services/realtime-worker/internal/room"
	"github.com/mithub/mithub/services/realtime-worker/internal/testenv"
	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
)

func TestMain(m *testing.M) {
	// The test participants' SDK logs are noise; the worker logs its own.
	lksdk.SetLogger(protologger.LogRLogger(logr.Discard()))
	code := m.Run()
	testenv.CleanupBinaries()
	os.Exit(code)
}

// liveKitBin returns the server binary or skips the test with the reason.
func liveKitBin(t *testing.T) string {
	t.Helper()
	bin, err := testenv.LiveKitBinary()
	if errors.Is(err, testenv.ErrNoLiveKit) {
		required.Missing(t, "needs a LiveKit server: set MITHUB_TEST_LIVEKIT_BIN (scripts/livekit.sh prints it): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stack is a real meeting stack: PostgreSQL (the worker reaches it through
// a proxy the test can cut), agent-api, LiveKit and the worker.
type stack struct {
	st       *store.Store // direct, for assertions
	proxy    *testenv.Proxy
	api      *testenv.AgentAPI
	client   *apiclient.Client
	lk       *testenv.LiveKit
	worker   *started
	queue    string
	redisURL string
	// workerDB is the worker's database URL, through the proxy.
	workerDB string
}

func newStack(t *testing.T) *stack {
	t.Helper()
	return newStackWith(t, nil)
}

// newStackWith starts the stack with extra worker settings.
func newStackWith(t *testing.T, env map[string]string) *stack {
	t.Helper()
	bin := liveKitBin(t)
	apiBin, err := testenv.AgentAPIBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dsn, schema := storetest.NewSchema(t)
	directURL := storetest.URLWithSchema(t, dsn, schema)

	s := &stack{redisURL: testRedisURL(), queue: fmt.Sprintf("bot-it-%d", time.Now().UnixNano())}
	s.api, err = testenv.StartAgentAPI(ctx, apiBin, directURL, s.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.api.Stop()
		if t.Failed() {
			t.Logf("agent-api output:\n%s", s.api.Output())
		}
	})
	s.client = apiclient.New(s.api.URL, config.DevAPIKey)
	s.st, err = store.Open(ctx, dsn, store.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.st.Close)

	u, err := url.Parse(directURL)
	if err != nil {
		t.Fatal(err)
	}
	s.proxy, err = testenv.StartProxy(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.proxy.Close() })
	u.Host = s.proxy.Addr()
	s.workerDB = u.String()

	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	workerAddr := fmt.Sprintf("127.0.0.1:%d", port)
	s.lk, err = testenv.StartLiveKit(ctx, bin, testenv.LiveKitOptions{WebhookURL: "http://" + workerAddr + "/livekit/webhook"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.lk.Close)

	settings := map[string]string{
		"MITHUB_DATABASE_URL":        u.String(),
		"MITHUB_API_URL":             s.api.URL,
		"MITHUB_LIVEKIT_URL":         s.lk.URL,
		"MITHUB_WORKER_HTTP_ADDR":    workerAddr,
		"MITHUB_WORKER_QUEUE":        s.queue,
		"MITHUB_WORKER_LEASE_PREFIX": s.queue + ":room:",
		"MITHUB_LOG_LEVEL":           "info",
	}
	for k, v := range env {
		settings[k] = v
	}
	s.worker = start(t, devConfig(t, settings))
	return s
}

// joinTask enqueues bot:join for room on the stack's queue.
func (s *stack) joinTask(t *testing.T, roomName string) {
	t.Helper()
	opt, err := asynq.ParseRedisURI(s.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	c := asynq.NewClient(opt)
	defer c.Close()
	task, err := tasks.NewBotJoinTask(&mithubv1.BotJoinTask{RoomName: roomName}, asynq.Queue(s.queue))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Enqueue(task); err != nil {
		t.Fatal(err)
	}
}

// participant is a test participant in the room.
type participant struct {
	room *lksdk.Room
	// trackSID is its published microphone track, if any.
	trackSID string

	mu     sync.Mutex
	chats  []chat
	legacy []string
}

// chat is an answer received on lk.chat.
type chat struct {
	attrs map[string]string
	text  string
	first time.Time
}

func join(t *testing.T, lk *testenv.LiveKit, roomName, identity, name string, publishAudio bool) *participant {
	t.Helper()
	p := &participant{}
	cb := lksdk.NewRoomCallback()
	cb.OnDataPacket = func(d lksdk.DataPacket, params lksdk.DataReceiveParams) {
		if u, ok := d.(*lksdk.UserDataPacket); ok && u.Topic == room.TopicLegacyChat {
			p.mu.Lock()
			p.legacy = append(p.legacy, string(u.Payload))
			p.mu.Unlock()
		}
	}
	r, err := lksdk.ConnectToRoom(lk.URL, lksdk.ConnectInfo{
		APIKey: testenv.LiveKitKey, APISecret: testenv.LiveKitSecret, RoomName: roomName,
		ParticipantIdentity: identity, ParticipantName: name,
	}, cb, lksdk.WithAutoSubscribe(false))
	if err != nil {
		t.Fatalf("%s joins: %v", identity, err)
	}
	t.Cleanup(r.Disconnect)
	p.room = r
	if err := r.RegisterTextStreamHandler(room.TopicChat, func(rd *lksdk.TextStreamReader, _ string) {
		first := make([]byte, 1)
		n, _ := rd.Read(first)
		at := time.Now()
		rest := rd.ReadAll()
		p.mu.Lock()
		p.chats = append(p.chats, chat{attrs: rd.Info.Attributes, text: string(first[:n]) + rest, first: at})
		p.mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	if publishAudio {
		track, err := webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus}, "audio", identity+"-mic")
		if err != nil {
			t.Fatal(err)
		}
		pub, err := r.LocalParticipant.PublishTrack(track, &lksdk.TrackPublicationOptions{Name: "mic"})
		if err != nil {
			t.Fatalf("%s publishes audio: %v", identity, err)
		}
		p.trackSID = pub.SID()
	}
	return p
}

// say sends one transcription text stream in LiveKit Agents' format.
func (p *participant) say(segID, text string, final bool, trackSID string) {
	attrs := map[string]string{transcript.AttrSegmentID: segID, transcript.AttrFinal: fmt.Sprint(final)}
	if trackSID != "" {
		attrs[transcript.AttrTranscribedTrack] = trackSID
	}
	p.room.LocalParticipant.SendText(text, lksdk.StreamTextOptions{Topic: transcript.TopicTranscription, Attributes: attrs})
}

func (p *participant) chatsNow() []chat {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]chat(nil), p.chats...)
}

func (p *participant) legacyNow() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.legacy...)
}

// line is one planned final segment.
type line struct {
	seg, speaker, text string
}

var meetingScript = []line{
	{"k-1", "kim", "오늘은 다음 분기 예산과 출시 일정을 정리하겠습니다."},
	{"a-1", "amy", "Sounds good. The marketing budget is the open question."},
	{"k-2", "kim", "마케팅 예산은 지난 분기보다 이십 퍼센트 늘리는 안이 있습니다."},
	{"a-2", "amy", "I think twenty percent is fine if the launch stays in March."},
	{"k-3", "kim", "출시는 삼월 둘째 주로 확정하는 게 좋겠습니다."},
	{"a-3", "amy", "Agreed, we decided to launch in the second week of March."},
	{"k-4", "kim", "그럼 예산 증액도 확정하고 제가 재무팀에 공유하겠습니다."},
	{"a-4", "amy", "Great, I will update the launch checklist by Friday."},
}

func TestMeetingThroughLiveKit(t *testing.T) {
	s := newStack(t)
	ctx := context.Background()
	const roomName = "weekly-sync"

	// Webhooks (room_started) and a bot:join task both ask for the room;
	// the bot joins once.
	kim := join(t, s.lk, roomName, "kim", "김민수", true)
	amy := join(t, s.lk, roomName, "amy", "Amy Park", false)
	stt := join(t, s.lk, roomName, "stt-agent", "Transcriber", false)
	s.joinTask(t, roomName)
	eventually(t, 30*time.Second, "the bot in the room", func() bool {
		return amy.room.GetParticipantByIdentity("mithub-bot") != nil &&
			stt.room.GetParticipantByIdentity("mithub-bot") != nil
	})
	meetingID := s.worker.app.Rooms()[roomName]
	if meetingID == "" {
		t.Fatalf("worker rooms = %v", s.worker.app.Rooms())
	}
	tenant := s.worker.app.TenantID()

	stored := func() map[string]store.Transcript {
		ts, err := s.st.ListTranscripts(ctx, tenant, meetingID, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]store.Transcript{}
		for _, tr := range ts {
			out[tr.SegmentID] = tr
		}
		return out
	}
	want := map[string]line{}
	speak := func(l line) {
		want[l.seg] = l
		if l.speaker == "kim" { // Kim's speech arrives through the transcriber, for Kim's track
			stt.say(l.seg, l.text, true, kim.trackSID)
			return
		}
		amy.say(l.seg, l.text, true, "")
	}

	// Interim updates first; only the final text is stored.
	stt.say("k-1", "오늘은 다음 분기", false, kim.trackSID)
	for _, l := range meetingScript {
		speak(l)
	}
	eventually(t, 20*time.Second, "the first segments in postgres", func() bool { return len(stored()) == len(want) })

	// PostgreSQL unreachable for 10 s mid-meeting.
	s.proxy.Cut()
	cutAt := time.Now()
	for i := range 6 {
		speak(line{fmt.Sprintf("cut-%d", i), []string{"kim", "amy"}[i%2],
			[]string{"예산 문서는 공유 드라이브에 올렸습니다.", "The checklist has twelve items now."}[i%2] + fmt.Sprintf(" (%d)", i)})
	}
	eventually(t, 20*time.Second, "segments spooled while postgres is cut", func() bool {
		return s.worker.app.IngestStats().Spooled >= 6
	})
	time.Sleep(time.Until(cutAt.Add(10 * time.Second))) // the outage lasts 10 s
	s.proxy.Restore()
	eventually(t, 30*time.Second, "spooled segments drained", func() bool { return len(stored()) == len(want) })

	// agent-api restarts mid-meeting.
	s.api.Stop()
	for i := range 4 {
		speak(line{fmt.Sprintf("restart-%d", i), []string{"amy", "kim"}[i%2],
			[]string{"While the API restarts we keep talking.", "재시작 중에도 회의는 계속됩니다."}[i%2] + fmt.Sprintf(" (%d)", i)})
	}
	eventually(t, 20*time.Second, "segments stored while agent-api is down", func() bool { return len(stored()) == len(want) })
	if err := s.api.Start(ctx); err != nil {
		t.Fatal(err)
	}

	// Wake words: English in one segment, Korean over two segments.
	speak(line{"a-q", "amy", "Hey MitHub, what did we decide about the launch?"})
	eventually(t, 30*time.Second, "an answer to amy", func() bool { return len(amy.chatsNow()) >= 1 })
	speak(line{"k-q1", "kim", "밋허브야"})
	eventually(t, 20*time.Second, "kim's wake word stored", func() bool { _, ok := stored()["k-q1"]; return ok })
	speak(line{"k-q2", "kim", "마케팅 예산은 어떻게 하기로 했지?"})
	eventually(t, 30*time.Second, "an answer to kim", func() bool { return len(kim.chatsNow()) >= 2 })

	rows := stored()
	if len(rows) != len(want) {
		t.Errorf("%d rows, want %d", len(rows), len(want))
	}
	all, err := s.st.ListTranscripts(ctx, tenant, meetingID, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range all {
		if tr.Seq != i {
			t.Errorf("row %d has seq %d: seqs must be 0..n-1 without gaps", i, tr.Seq)
		}
	}
	names := map[string]string{"kim": "김민수", "amy": "Amy Park"}
	for id, l := range want {
		tr, ok := rows[id]
		if !ok {
			t.Errorf("segment %s (%q) lost", id, l.text)
			continue
		}
		if tr.Text != l.text || tr.SpeakerID != l.speaker || tr.SpeakerName != names[l.speaker] ||
			tr.Source != transcript.SourceTextStream || tr.Tokens <= 0 {
			t.Errorf("segment %s stored as %+v, want %q by %s", id, tr, l.text, l.speaker)
		}
	}
	if st := s.worker.app.IngestStats(); st.Dropped != 0 || st.Pending != 0 {
		t.Errorf("ingest stats %+v: nothing may be dropped or left pending", st)
	}

	// agent-api's context has every turn (after its restart, from
	// PostgreSQL) and topics.
	var mc apiclient.Context
	eventually(t, 30*time.Second, "agent-api context to hold every turn", func() bool {
		mc, err = s.client.ContextWaited(ctx, meetingID)
		return err == nil && mc.Cursor == int64(len(want)-1)
	})
	if mc.Counters.Utterances != int64(len(want)) {
		t.Errorf("context counters %+v, want %d utterances", mc.Counters, len(want))
	}
	speakers := map[string]bool{}
	for _, sp := range mc.Speakers {
		speakers[sp.ID] = true
	}
	if !speakers["kim"] || !speakers["amy"] || speakers["stt-agent"] {
		t.Errorf("context speakers %+v, want kim and amy only", mc.Speakers)
	}

	// The answers, as the publishers received them.
	for who, p := range map[string]*participant{"amy": amy, "kim": kim} {
		cs := p.chatsNow()
		var got *chat
		for i := range cs {
			q := map[string]string{"amy": "a-q", "kim": "k-q2"}[who]
			if cs[i].attrs[room.AttrQuestionSegment] == q {
				got = &cs[i]
			}
		}
		if got == nil {
			t.Errorf("%s got no answer to its question; chats %+v", who, cs)
			continue
		}
		if strings.TrimSpace(got.text) == "" || strings.HasPrefix(got.text, "Sorry") {
			t.Errorf("%s's answer = %q", who, got.text)
		}
	}
	a := amy.chatsNow()
	if !strings.Contains(strings.ToLower(a[0].text), "march") && !strings.Contains(a[0].text, "삼월") {
		t.Errorf("answer about the launch %q quotes no launch turn", a[0].text)
	}
	eventually(t, 10*time.Second, "legacy chat packets", func() bool { return len(amy.legacyNow()) >= 2 })

	// Joe steps out and Kim goes on; back in the room, Joe asks what he
	// missed and is caught up from when he left.
	joe := join(t, s.lk, roomName, "joe", "Joe", false)
	eventually(t, 20*time.Second, "joe in the room", func() bool { return kim.room.GetParticipantByIdentity("joe") != nil })
	joe.room.Disconnect()
	eventually(t, 20*time.Second, "joe's leaving recorded", func() bool {
		_, ok, err := s.st.LastLeft(ctx, tenant, meetingID, "joe")
		return err == nil && ok
	})
	speak(line{"k-away", "kim", "Joe가 없는 동안 출시 발표 리허설을 목요일로 옮기기로 했습니다."})
	eventually(t, 20*time.Second, "kim's turn while joe is away", func() bool { _, ok := stored()["k-away"]; return ok })
	joe = join(t, s.lk, roomName, "joe", "Joe", false)
	want["j-miss"] = line{"j-miss", "joe", "Hey MitHub, what did I miss?"}
	joe.say("j-miss", want["j-miss"].text, true, "")
	var caughtUp string
	eventually(t, 30*time.Second, "joe caught up", func() bool {
		for _, c := range joe.chatsNow() {
			if c.attrs[room.AttrQuestionSegment] == "j-miss" {
				caughtUp = c.text
				return true
			}
		}
		return false
	})
	if !strings.Contains(caughtUp, "리허설") || strings.Contains(caughtUp, "launch checklist") {
		t.Errorf("catch-up for joe %q: want kim's turn from while he was away, and nothing from before", caughtUp)
	}

	// answerTo finds the answer to a question segment and its place among
	// the answers.
	answerTo := func(seg string) (chat, int) {
		for i, c := range amy.chatsNow() {
			if c.attrs[room.AttrQuestionSegment] == seg {
				return c, i
			}
		}
		return chat{}, -1
	}
	// Kim never left: a bare name with a pause, and a catch-up of the
	// minutes before the question that never quotes the question back.
	speak(line{"k-miss", "kim", "미트허브, 내가 놓친 거 알려줘"})
	eventually(t, 30*time.Second, "kim caught up", func() bool { _, i := answerTo("k-miss"); return i >= 0 })
	if c, _ := answerTo("k-miss"); strings.TrimSpace(c.text) == "" || strings.HasPrefix(c.text, "Sorry") || strings.Contains(c.text, "놓친 거") {
		t.Errorf("kim's catch-up %q is empty or quotes the question", c.text)
	}
	// Amy's second question within the cooldown is queued and answered
	// after the first, not dropped.
	// (Two text streams may overtake each other: the second is sent once
	// the first is stored, well within the 5 s cooldown.)
	speak(line{"a-c1", "amy", "MitHub, who moved the rehearsal?"})
	eventually(t, 20*time.Second, "amy's first question stored", func() bool { _, ok := stored()["a-c1"]; return ok })
	speak(line{"a-c2", "amy", "Hey MitHub, what day is the rehearsal now?"})
	eventually(t, 60*time.Second, "both of amy's questions answered", func() bool {
		_, i := answerTo("a-c1")
		_, j := answerTo("a-c2")
		return i >= 0 && j >= 0
	})
	c1, i := answerTo("a-c1")
	c2, j := answerTo("a-c2")
	if j < i || c2.first.Before(c1.first) {
		t.Errorf("the queued question was answered (#%d at %v) before the first one (#%d at %v)", j, c2.first, i, c1.first)
	}
	for _, c := range []chat{c1, c2} {
		if strings.Contains(c.text, "who moved the rehearsal") || strings.Contains(c.text, "what day is the rehearsal") {
			t.Errorf("answer %q quotes a question", c.text)
		}
	}

	// Lee joins late: "what did I miss?" covers the meeting before Lee
	// came, not what was said after.
	lee := join(t, s.lk, roomName, "lee", "Lee", false)
	eventually(t, 20*time.Second, "lee's join recorded", func() bool {
		evs, err := s.st.PresenceOf(ctx, tenant, meetingID, "lee")
		return err == nil && len(evs) == 1
	})
	speak(line{"k-after-lee", "kim", "Lee가 온 뒤에 예산 승인은 금요일로 미뤘습니다."})
	eventually(t, 20*time.Second, "kim's turn after lee joined", func() bool { _, ok := stored()["k-after-lee"]; return ok })
	want["l-miss"] = line{"l-miss", "lee", "MitHub, what did I miss?"}
	lee.say("l-miss", want["l-miss"].text, true, "")
	eventually(t, 30*time.Second, "lee caught up", func() bool { _, i := answerTo("l-miss"); return i >= 0 })
	if c, _ := answerTo("l-miss"); strings.TrimSpace(c.text) == "" || strings.HasPrefix(c.text, "Sorry") ||
		strings.Contains(c.text, "금요일로 미뤘") || strings.Contains(c.text, "what did I miss") {
		t.Errorf("lee's catch-up %q: want the meeting before lee joined, without what came after or the question", c.text)
	}

	// The room ends: the bot leaves and the meeting is ended.
	rs := lksdk.NewRoomServiceClient(s.lk.HTTPURL, testenv.LiveKitKey, testenv.LiveKitSecret)
	if _, err := rs.DeleteRoom(ctx, &livekit.DeleteRoomRequest{Room: roomName}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the meeting ended", func() bool {
		m, err := s.st.GetMeeting(ctx, tenant, meetingID)
		return err == nil && m.Status == store.MeetingEnded
	})
	eventually(t, 10*time.Second, "the bot out of the room", func() bool { return s.worker.app.Rooms()[roomName] == "" })

	// Ending the meeting at agent-api flushed the last chunk into topics.
	// (With more than 25 turns a first topic exists before the end: wait
	// for the last chunk's.)
	var topics apiclient.TopicList
	covered := 0
	eventually(t, 30*time.Second, "topics at agent-api covering every turn", func() bool {
		topics, err = s.client.Topics(ctx, meetingID)
		covered = 0
		for _, tp := range topics.Topics {
			covered += tp.EndSeq - tp.StartSeq + 1
		}
		return err == nil && covered == len(want)
	})
	if covered != len(want) {
		t.Errorf("topics cover %d turns, want all %d: %+v", covered, len(want), topics.Topics)
	}
}
