package wake_test

import (
	"testing"
	"time"

	"github.com/mithub/mithub/services/realtime-worker/internal/wake"
)

var phrases = []string{"hey mithub", "헤이 밋허브", "밋허브야"}

func TestMatcherFind(t *testing.T) {
	m := wake.NewMatcher(phrases, 2)
	tests := []struct {
		give     string
		wantOK   bool
		wantRest string
	}{
		{"Hey MitHub, what did we decide about the budget?", true, "what did we decide about the budget?"},
		{"hey mit hub what's next", true, "what's next"},
		{"hey mithob: summarize", true, "summarize"},
		{"ok so, hey mithub. who owns the migration?", true, "who owns the migration?"},
		{"헤이 밋허브, 지난주 결정 사항 알려줘", true, "지난주 결정 사항 알려줘"},
		{"헤이 미허브 예산 얼마였지?", true, "예산 얼마였지?"},
		{"밋허브야 오늘 회의 요약해 줘", true, "오늘 회의 요약해 줘"},
		{"밋허브, 다음 안건은?", true, "다음 안건은?"},
		{"헤이 밋허브야", true, ""},
		{"hey mithub", true, ""},
		{"hey michael, what's up", false, ""},
		{"let's talk about the hub migration", false, ""},
		{"허브 설정을 바꿨어요", false, ""},
		{"", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			got, ok := m.Find(tt.give)
			if ok != tt.wantOK || got.Rest != tt.wantRest {
				t.Errorf("Find(%q) = %+v, %v; want rest %q, %v", tt.give, got, ok, tt.wantRest, tt.wantOK)
			}
		})
	}
}

func TestMatcherDecomposedHangul(t *testing.T) {
	m := wake.NewMatcher(phrases, 2)
	// "헤이 밋허브" in NFD, as some recognizers emit it.
	nfd := "\u1112\u1166\u110b\u1175 \u1106\u1175\u11ba\u1112\u1165\u1107\u1173 일정 알려줘"
	got, ok := m.Find(nfd)
	if !ok || got.Rest != "일정 알려줘" {
		t.Errorf("Find(NFD) = %+v, %v", got, ok)
	}
}

func TestDetector(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	type obs struct {
		seg, speaker, text string
		at                 time.Duration
		want               string // question text, "" for none
	}
	tests := []struct {
		name string
		give []obs
	}{
		{"question in the same segment", []obs{
			{"s1", "kim", "헤이 밋허브, 예산은 언제 확정돼?", 0, "예산은 언제 확정돼?"},
		}},
		{"question in the next segment within the window", []obs{
			{"s1", "amy", "Hey MitHub.", 0, ""},
			{"s2", "kim", "잠깐만요", time.Second, ""},
			{"s3", "amy", "What did we decide about the launch?", 3 * time.Second, "What did we decide about the launch?"},
		}},
		{"next segment too late", []obs{
			{"s1", "amy", "hey mithub", 0, ""},
			{"s2", "amy", "never mind the budget", 9 * time.Second, ""},
		}},
		{"re-sent segment does not trigger twice", []obs{
			{"s1", "amy", "hey mithub, who owns QA?", 0, "who owns QA?"},
			{"s1", "amy", "hey mithub, who owns QA?", 20 * time.Second, ""},
		}},
		{"cooldown per speaker", []obs{
			{"s1", "amy", "hey mithub, who owns QA?", 0, "who owns QA?"},
			{"s2", "amy", "hey mithub, who owns QA?", 2 * time.Second, ""},
			{"s3", "kim", "밋허브야 QA 담당자 누구야?", 2 * time.Second, "QA 담당자 누구야?"},
			{"s4", "amy", "hey mithub, and the release date?", 6 * time.Second, "and the release date?"},
		}},
		{"plain talk is no question", []obs{
			{"s1", "amy", "what did we decide?", 0, ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := wake.NewDetector(wake.Config{Phrases: phrases, MaxEdits: 2, FollowUp: 8 * time.Second, Cooldown: 5 * time.Second})
			for _, o := range tt.give {
				q, ok := d.Observe(o.seg, o.speaker, o.speaker, o.text, t0.Add(o.at))
				if ok != (o.want != "") || q.Text != o.want {
					t.Errorf("Observe(%s %q) = %q, %v; want %q", o.seg, o.text, q.Text, ok, o.want)
				}
				if ok && (q.SegmentID != o.seg || q.SpeakerID != o.speaker) {
					t.Errorf("question %+v is not from %s/%s", q, o.seg, o.speaker)
				}
			}
		})
	}
}

func TestFollowUpSkipsFiller(t *testing.T) {
	d := wake.NewDetector(wake.Config{Phrases: phrases, MaxEdits: 2, FollowUp: 8 * time.Second, Cooldown: 5 * time.Second})
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
