package wake_test

import (
	"testing"
	"time"

	"github.com/mithub/mithub/services/realtime-worker/internal/wake"
)

// phrases as an older configuration wrote them: the "hey" and "야" are
// stripped, the names kept.
var phrases = []string{"hey mithub", "헤이 밋허브", "밋허브야", "미트허브"}

// TestDetectorMatcher: the detector uses the shared matcher, with the
// configured names.
func TestDetectorMatcher(t *testing.T) {
	d := newDetector(t)
	for _, c := range []struct{ give, want string }{
		{"Hey MitHub, what did we decide about the budget?", "what did we decide about the budget?"},
		{"미트허브 오늘 회의 요약해 줘", "오늘 회의 요약해 줘"},
		{"MitHub, who owns QA?", "who owns QA?"},
		{"Hey GitHub is down again, so what is the launch date?", ""},
		// NFD Hangul, as some recognizers emit it.
		{"\u1112\u1166\u110b\u1175 \u1106\u1175\u11ba\u1112\u1165\u1107\u1173 일정 알려줘", "일정 알려줘"},
	} {
		q, ok := d.Observe(c.give, "amy", "Amy", c.give, time.Unix(1_700_000_000, 0))
		if ok != (c.want != "") || q.Text != c.want {
			t.Errorf("Observe(%q) = %q, %v; want %q", c.give, q.Text, ok, c.want)
		}
	}
	if _, err := wake.NewDetector(wake.Config{MaxEdits: 9}); err == nil {
		t.Error("a max edits of 9 was accepted")
	}
}

func newDetector(t testing.TB) *wake.Detector {
	d, err := wake.NewDetector(wake.Config{Phrases: phrases, MaxEdits: 1, FollowUp: 8 * time.Second, Cooldown: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDetector(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	type obs struct {
		seg, speaker, text string
		at                 time.Duration
		want               string // question text, "" for none
		queued, repeat     bool
	}
	tests := []struct {
		name string
		give []obs
	}{
		{"question in the same segment", []obs{
			{"s1", "kim", "헤이 밋허브, 예산은 언제 확정돼?", 0, "예산은 언제 확정돼?", false, false},
		}},
		{"question in the next segment within the window", []obs{
			{"s1", "amy", "Hey MitHub.", 0, "", false, false},
			{"s2", "kim", "잠깐만요", time.Second, "", false, false},
			{"s3", "amy", "What did we decide about the launch?", 3 * time.Second, "What did we decide about the launch?", false, false},
		}},
		{"next segment too late", []obs{
			{"s1", "amy", "hey mithub", 0, "", false, false},
			{"s2", "amy", "never mind the budget", 9 * time.Second, "", false, false},
		}},
		{"re-sent segment does not trigger twice", []obs{
			{"s1", "amy", "hey mithub, who owns QA?", 0, "who owns QA?", false, false},
			{"s1", "amy", "hey mithub, who owns QA?", 20 * time.Second, "", false, false},
		}},
		{"cooldown per speaker: queued, repeats marked", []obs{
			{"s1", "amy", "hey mithub, who owns QA?", 0, "who owns QA?", false, false},
			{"s2", "amy", "Hey MitHub: who owns QA", 2 * time.Second, "who owns QA", true, true},
			{"s3", "kim", "밋허브야 QA 담당자 누구야?", 2 * time.Second, "QA 담당자 누구야?", false, false},
			{"s4", "amy", "hey mithub, and the release date?", 4 * time.Second, "and the release date?", true, false},
			{"s5", "amy", "hey mithub, and the budget?", 10 * time.Second, "and the budget?", false, false},
		}},
		{"plain talk is no question", []obs{
			{"s1", "amy", "what did we decide?", 0, "", false, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDetector(t)
			for _, o := range tt.give {
				q, ok := d.Observe(o.seg, o.speaker, o.speaker, o.text, t0.Add(o.at))
				if ok != (o.want != "") || q.Text != o.want || q.Queued != o.queued || q.Repeat != o.repeat {
					t.Errorf("Observe(%s %q) = %+v, %v; want %q queued=%v repeat=%v", o.seg, o.text, q, ok, o.want, o.queued, o.repeat)
				}
				if ok && (q.SegmentID != o.seg || q.SpeakerID != o.speaker) {
					t.Errorf("question %+v is not from %s/%s", q, o.seg, o.speaker)
				}
			}
		})
	}
}

func TestFollowUpSkipsFiller(t *testing.T) {
	d := newDetector(t)
	now := time.Unix(1_700_000_000, 0)
	steps := []struct {
		id, text string
		wantOK   bool
		wantText string
	}{
		{"s1", "헤이 밋허브", false, ""},
		{"s2", "음...", false, ""},
		{"s3", "?", false, ""},
		{"s4", " 배포 일정 어떻게 됐지? ", true, "배포 일정 어떻게 됐지?"},
	}
	for i, st := range steps {
		q, ok := d.Observe(st.id, "kim", "김민수", st.text, now.Add(time.Duration(i)*time.Second))
		if ok != st.wantOK || q.Text != st.wantText {
			t.Fatalf("step %d (%q): %+v, %v; want %q, %v", i, st.text, q, ok, st.wantText, st.wantOK)
		}
	}
}
