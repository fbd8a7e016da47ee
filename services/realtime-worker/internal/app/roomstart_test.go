package app_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/realtime-worker/internal/room"
)

// A room started by LiveKit (its room_started webhook is the only thing
// that brings the bot) whose participants publish transcript lines from
// their first second on: as themselves and through an STT agent for a
// participant's microphone track. Every final line is stored exactly
// once, and a question asked 200 ms after its asker joined is answered.
func TestWebhookStartedRoomKeepsItsStart(t *testing.T) {
	s := newStack(t)
	ctx := context.Background()
	const roomName = "launch-standup"
	const perSpeaker = 10
	const every = 400 * time.Millisecond

	type sent struct{ id, speaker, text string }
	var (
		mu   sync.Mutex
		want []sent
		wg   sync.WaitGroup
	)
	talk := func(who string, say func(id, text string)) {
		defer wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for i := range perSpeaker {
			<-tick.C
			id := fmt.Sprintf("%s-%02d", who, i)
			text := fmt.Sprintf("%s line %d: 출시 준비 항목 %d번을 확인했습니다.", who, i, i)
			mu.Lock()
			want = append(want, sent{id, who, text})
			mu.Unlock()
			say(id, text)
		}
	}
	// Amy's joining creates the room (nobody enqueues bot:join: LiveKit's
	// room_started webhook is what brings the bot) and she talks from her
	// first second on; so does the STT agent for Kim's microphone once
	// Kim has published it.
	amy := join(t, s.lk, roomName, "amy", "Amy Park", false)
	amyJoined := time.Now()
	wg.Add(2)
	go talk("amy", func(id, text string) { amy.say(id, text, true, "") })
	stt := join(t, s.lk, roomName, "stt-agent", "Transcriber", false)
	kim := join(t, s.lk, roomName, "kim", "김민수", true)
	// A transcriber transcribes a track it receives: it starts once Kim's
	// microphone is published to the room as it sees it. The bot may not
	// have seen that track yet when the first lines arrive.
	eventually(t, 10*time.Second, "kim's microphone visible to the transcriber", func() bool {
		p := stt.room.GetParticipantByIdentity("kim")
		if p == nil {
			return false
		}
		for _, pub := range p.TrackPublications() {
			if pub.SID() == kim.trackSID {
				return true
			}
		}
		return false
	})
	go talk("kim", func(id, text string) { stt.say(id, text, true, kim.trackSID) })

	// Joe joins and asks 200 ms later.
	joe := join(t, s.lk, roomName, "joe", "Joe", false)
	joeJoined := time.Now()
	time.Sleep(200 * time.Millisecond) // the scenario: a question 200 ms after joining, not a synchronisation
	const question = "Hey MitHub, which launch items did Kim confirm?"
	joe.say("joe-q", question, true, "")
	mu.Lock()
	want = append(want, sent{"joe-q", "joe", question})
	mu.Unlock()
	wg.Wait()
	t.Logf("joe joined %s after amy; lines every %s", joeJoined.Sub(amyJoined).Round(time.Millisecond), every)

	var meetingID string
	eventually(t, 30*time.Second, "the bot's meeting", func() bool {
		meetingID = s.worker.app.Rooms()[roomName]
		return meetingID != ""
	})
	tenant := s.worker.app.TenantID()
	// Wait until every line is in, or until nothing more arrives: a lost
	// line is reported with the others.
	var rows []store.Transcript
	for deadline, last, lastAt := time.Now().Add(30*time.Second), -1, time.Now(); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var err error
		if rows, err = s.st.ListTranscripts(ctx, tenant, meetingID, -1, 0); err != nil {
			t.Fatal(err)
		}
		if len(rows) >= len(want) || (len(rows) == last && time.Since(lastAt) > 10*time.Second) {
			break
		}
		if len(rows) != last {
			last, lastAt = len(rows), time.Now()
		}
	}
	byID := map[string]int{}
	for _, r := range rows {
		byID[r.SegmentID]++
	}
	lost := 0
	for _, w := range want {
		switch n := byID[w.id]; {
		case n == 0:
			lost++
			t.Errorf("line %s (%s) lost", w.id, w.speaker)
		case n > 1:
			t.Errorf("line %s stored %d times", w.id, n)
		}
	}
	if len(rows) != len(want) {
		t.Errorf("%d rows stored, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		if want := strings.SplitN(r.SegmentID, "-", 2)[0]; r.SpeakerID != want {
			t.Errorf("row %s attributed to %q, want %q", r.SegmentID, r.SpeakerID, want)
		}
	}
	t.Logf("%d of %d lines stored (%d lost)", len(want)-lost, len(want), lost)

	eventually(t, 45*time.Second, "an answer to joe", func() bool {
		for _, c := range joe.chatsNow() {
			if c.attrs[room.AttrQuestionSegment] == "joe-q" && strings.TrimSpace(c.text) != "" {
				return true
			}
		}
		return false
	})
}
