package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mithub/mithub/services/agent-api/internal/ask"
)

// numbered returns n turns 20 s apart, each a second long, with unique
// text ("item i"), by spk0..spk2 in turn.
func numbered(prefix string, n int) []utterance {
	out := make([]utterance, n)
	for i := range out {
		at := int64(i) * 20_000
		out[i] = utterance{SegmentID: fmt.Sprintf("%s-%03d", prefix, i), SpeakerID: fmt.Sprint("spk", i%3), SpeakerName: fmt.Sprint("Speaker ", i%3),
			Text: fmt.Sprintf("Status item %d: the launch checklist moved forward.", i), StartMS: at, EndMS: at + 1000, Confidence: 0.95}
	}
	return out
}

// TestAskCatchUpWindows: each catch-up rule picks its window, the question
// turn (and every turn addressed to the bot) is never in the context, and
// an empty window is widened.
func TestAskCatchUpWindows(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	us := numbered("w", 60) // 0 .. 1,180 s
	// Amy, who never left, asks by voice at 1,200 s; Kim's earlier
	// question to the bot is no evidence either.
	us[45].Text, us[45].SpeakerID = "헤이 밋허브, 지금까지 결정된 거 뭐야?", "kim"
	q := utterance{SegmentID: "q-amy", SpeakerID: "amy", SpeakerName: "Amy", Text: "Hey MitHub, what did I miss? Status item launch checklist",
		StartMS: 1_200_000, EndMS: 1_202_000, Confidence: 0.95}
	h.post(key, m.ID, append(us, q))
	presence := func(who, kind string, at int64) {
		b, _ := json.Marshal(map[string]any{"participant_id": who, "event": kind, "at_ms": at})
		if r := h.do(http.MethodPost, "/v1/meetings/"+m.ID+"/presence", key, b); r.status != http.StatusOK {
			t.Fatalf("presence: %d %s", r.status, r.body)
		}
	}
	catchUp := func(asker, segment string) ask.Result {
		t.Helper()
		body := map[string]any{"mode": "catch_up", "question": "what did I miss?", "asker_id": asker}
		if segment != "" {
			body["question_segment_id"] = segment
		}
		status, res, raw := h.askJSON(key, m.ID, "?debug=true", body)
		if status != http.StatusOK || res.Debug == nil || res.SinceMS == nil {
			t.Fatalf("catch-up of %s: %d %s", asker, status, raw)
		}
		return res
	}
	// has reports whether turn i is among the context's turn lines
	// ("[n] mm:ss Speaker: text"; topic summaries may quote any turn).
	has := func(res ask.Result, i int) bool {
		return strings.Contains(turnLines(res), fmt.Sprintf("Speaker %d: Status item %d:", i%3, i))
	}
	noQuestion := func(res ask.Result) {
		t.Helper()
		if l := turnLines(res); strings.Contains(l, "what did I miss") || strings.Contains(l, "지금까지 결정된") {
			t.Errorf("the context's turns hold a question to the bot:\n%s", l)
		}
		for _, c := range res.Citations {
			if c.Seq == 60 || c.Seq == 45 {
				t.Errorf("citation %+v is a question to the bot", c)
			}
		}
	}

	// Amy never left: the 5 minutes before her question.
	res := catchUp("amy", "q-amy")
	if res.Window != ask.WindowRecent || *res.SinceMS != 900_000 || res.UntilMS == nil || *res.UntilMS != 1_200_000 {
		t.Fatalf("amy's window %s %v..%v, want recent 900000..1200000", res.Window, *res.SinceMS, res.UntilMS)
	}
	if has(res, 44) || !has(res, 46) || !has(res, 59) || len(res.Citations) == 0 {
		t.Errorf("amy's period: item 44 in=%v, 46 in=%v, 59 in=%v, %d citations", has(res, 44), has(res, 46), has(res, 59), len(res.Citations))
	}
	noQuestion(res)

	// Joe left at 601 s, reported 1 s after Speaker 0 said item 30 at
	// 600 s: the lag correction keeps item 30.
	presence("joe", "joined", 0)
	presence("joe", "left", 601_000)
	presence("joe", "joined", 700_000)
	res = catchUp("joe", "")
	if res.Window != ask.WindowSinceLeft || *res.SinceMS != 601_000-ask.PresenceLagMS || !has(res, 30) || has(res, 29) || !has(res, 59) {
		t.Errorf("joe's window %s since %d: item 29 in=%v, 30 in=%v, 59 in=%v", res.Window, *res.SinceMS, has(res, 29), has(res, 30), has(res, 59))
	}
	noQuestion(res)

	// Speaker 0 said item 30 (600-601 s) and left at 601.5 s: the period
	// starts after their own words.
	presence("spk0", "left", 601_500)
	res = catchUp("spk0", "")
	if res.Window != ask.WindowSinceLeft || *res.SinceMS != 601_000 || has(res, 30) || !has(res, 31) {
		t.Errorf("spk0's window %s since %d: item 30 in=%v, 31 in=%v", res.Window, *res.SinceMS, has(res, 30), has(res, 31))
	}

	// Bob joined at 300 s: what was said before he came.
	presence("bob", "joined", 300_000)
	res = catchUp("bob", "")
	if res.Window != ask.WindowSinceJoined || *res.SinceMS != 0 || res.UntilMS == nil || *res.UntilMS != 300_000 ||
		!has(res, 0) || !has(res, 15) || has(res, 16) {
		t.Errorf("bob's window %s %d..%v: item 0 in=%v, 15 in=%v, 16 in=%v", res.Window, *res.SinceMS, res.UntilMS, has(res, 0), has(res, 15), has(res, 16))
	}
	noQuestion(res)

	// Carl's join was reported 2 s after the first turn: LiveKit's lag,
	// not a late join.
	presence("carl", "joined", 2_000)
	if res = catchUp("carl", ""); res.Window != ask.WindowRecent {
		t.Errorf("carl's window %s, want recent", res.Window)
	}

	// A question after 15 minutes of silence: the recent window is empty
	// and widens to the meeting before the question.
	m2 := h.createMeeting(key)
	us2 := numbered("v", 10)
	q2 := utterance{SegmentID: "q-2", SpeakerID: "amy", SpeakerName: "Amy", Text: "MitHub, what did I miss?", StartMS: 1_100_000, EndMS: 1_101_000}
	h.post(key, m2.ID, append(us2, q2))
	status, res, raw := h.askJSON(key, m2.ID, "?debug=true", map[string]any{"mode": "catch_up", "asker_id": "amy", "question_segment_id": "q-2"})
	if status != http.StatusOK || res.SinceMS == nil || *res.SinceMS != 0 || !has(res, 0) || !has(res, 9) || len(res.Warnings) == 0 {
		t.Fatalf("widened window: %d since %v, warnings %q: %s", status, res.SinceMS, res.Warnings, raw)
	}
	if strings.Contains(turnLines(res), "what did I miss") {
		t.Errorf("the widened context holds the question:\n%s", turnLines(res))
	}
}

// turnLines returns the numbered turn lines of a debug context.
func turnLines(res ask.Result) string {
	var sb strings.Builder
	for _, l := range strings.Split(res.Debug.System, "\n") {
		if strings.HasPrefix(l, "[") {
			sb.WriteString(l + "\n")
		}
	}
	return sb.String()
}

// TestAskNeverCitesTheQuestion: an extractive answer to a question heard
// in the meeting cites other turns, never the question's own turn, even
// though it matches the question best.
func TestAskNeverCitesTheQuestion(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	key := h.key("acme")
	m := h.createMeeting(key)
	us := numbered("a", 6)
	us[2].Text = "The launch date is March 3rd."
	q := utterance{SegmentID: "q-launch", SpeakerID: "amy", SpeakerName: "Amy", Text: "What is the launch date, what is the launch date?",
		StartMS: 200_000, EndMS: 201_000, Confidence: 0.95}
	// Asked by chat, so no wake word marks it: only question_segment_id.
	h.post(key, m.ID, append(us, q))
	for _, withID := range []bool{false, true} {
		body := map[string]any{"question": "what is the launch date?", "asker_id": "amy"}
		if withID {
			body["question_segment_id"] = "q-launch"
		}
		status, res, raw := h.askJSON(key, m.ID, "", body)
		if status != http.StatusOK {
			t.Fatalf("ask: %d %s", status, raw)
		}
		citesQ := false
		for _, c := range res.Citations {
			citesQ = citesQ || c.Seq == 6
		}
		if withID && citesQ {
			t.Errorf("the answer cites the question turn: %+v", res.Citations)
		}
		if !withID && !citesQ {
			t.Errorf("without question_segment_id the question turn is not cited (%+v): the test proves nothing", res.Citations)
		}
	}
}
