package wakeword

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
)

func TestFindTable(t *testing.T) {
	m := MustDefault()
	positives := []struct{ text, rest string }{
		{"미트허브 오늘 회의 언제야?", "오늘 회의 언제야?"},
		{"미트허브, 출시일이 언제야", "출시일이 언제야"},
		{"미트허브 출시일 알려줘", "출시일 알려줘"},
		{"헤이 미트허브 출시일이 언제야", "출시일이 언제야"},
		{"헤이 밋허브, 결정된 게 뭐야?", "결정된 게 뭐야?"},
		{"헤이밋허브 요약해줘", "요약해줘"},
		{"밋허브야 지난주 결정 알려줘", "지난주 결정 알려줘"},
		{"밋허브야, 뭐 놓쳤어?", "뭐 놓쳤어?"},
		{"미트허브야 정리해줘", "정리해줘"},
		{"미트 허브, 다음 일정은?", "다음 일정은?"},
		{"미트 허브야 누가 담당이야", "누가 담당이야"},
		{"헤이 미트 허브 누가 담당이지?", "누가 담당이지?"},
		{"오케이 미트허브 요약해줘", "요약해줘"},
		{"오케이 밋허브 다음 단계는?", "다음 단계는?"},
		{"밋허브", ""},
		{"헤이 밋허브", ""},
		{"밋허브야", ""},
		{"음, 밋허브 오늘 결정된 거 뭐야?", "오늘 결정된 거 뭐야?"},
		{"밑허브, 출시일이 언제야?", "출시일이 언제야?"}, // final ㅌ heard for ㅅ
		{"믿허브야 일정 알려줘", "일정 알려줘"},       // final ㄷ heard for ㅅ
		{"미트허부, 일정 알려줘", "일정 알려줘"},      // one vowel off
		{"헤이 미트허버 요약해줘", "요약해줘"},        // one vowel off
		{"MitHub, what is the launch date?", "what is the launch date?"},
		{"Mithub what did we decide about pricing?", "what did we decide about pricing?"},
		{"mithub, summarize the last ten minutes", "summarize the last ten minutes"},
		{"Hey MitHub what did I miss?", "what did I miss?"},
		{"Hey Mit Hub, who owns the migration?", "who owns the migration?"},
		{"hey mit-hub when is the demo", "when is the demo"},
		{"Hey, MitHub. What's the deadline?", "What's the deadline?"},
		{"OK MitHub what are the action items", "what are the action items"},
		{"Okay MitHub, recap please", "recap please"},
		{"ok mit hub list the decisions", "list the decisions"},
		{"Mit Hub, what did I miss?", "what did I miss?"},
		{"Mit Hub?", ""},
		{"MitHub.", ""},
		{"Hey MitHub", ""},
		{"MITHUB WHAT IS THE BUDGET", "WHAT IS THE BUDGET"},
		{"Um, MitHub, when is the release?", "when is the release?"},
		{"So we agreed. Hey MitHub, what is the launch date?", "what is the launch date?"},
		{"Hey Mithab, what is the launch date?", "what is the launch date?"}, // vowel misheard
		{"Hey Methub, what's next?", "what's next?"},                         // vowel misheard
		{"hi mithub, what is next?", "what is next?"},
		{"그래서 헤이 밋허브 방금 뭐라고 했지?", "방금 뭐라고 했지?"},
		{"MitHub 출시일이 언제야?", "출시일이 언제야?"},
		{"미트허브 what is the launch date?", "what is the launch date?"},
	}
	negatives := []string{
		"Hey GitHub is down again, so what is the launch date?",
		"GitHub, what is the launch date?",
		"hey github what did I miss",
		"Git Hub, who owns this?",
		"The mid hub is where the trains meet.",
		"mid hub, what is that?",
		"Hey mid hub what is the plan",
		"hey hub what is the plan",
		"MitHub is great, I use it every day.",
		"I pushed the mithub repo yesterday.",
		"we should ask mithub later",
		"The MIT hub has a new lab.",
		"Method, what is the method here?",
		"Hey math hub what is two plus two",
		"My hub, what a day.",
		"Hey myth hub, where are we",
		"mitt hub, when?",
		"hey mitch what is up",
		"Hey Mitch, hub the data",
		"Hey Mike, what is the launch date?",
		"OK, so what is the launch date?",
		"smithub what is this",
		"mithubs are small",
		"깃허브 또 다운됐어, 출시일이 언제야?",
		"헤이 깃허브 출시일 알려줘",
		"깃허브야 일정 알려줘",
		"미트볼 먹으러 가자",
		"미트볼, 뭐 먹을래?",
		"헤이 미트볼 뭐야",
		"미트 볼은 어디 있어?",
		"허브 정리해줘",
		"헤이 허브 뭐야?",
		"밋업 일정이 언제야?",
		"미팅 허브, 뭐였지?",
		"우리 미트허브 써봤어?",
		"밋허브가 말했듯이 일정은 금요일이야",
		"밋허브는 좋은 도구야",
		"어제 밋허브에서 회의록을 봤어",
		"미트허브의 답변이 정확했어",
		"그 허브 미트 일정은?",
		"hey, who knows the launch date?",
		"mit, what is the launch date?",
		"hub, what is the launch date?",
		"미트허브 진짜 좋네",
		"Mithub really helped us today",
		"",
		"?!",
	}
	for _, c := range positives {
		mt, ok := m.Find(c.text)
		if !ok {
			t.Errorf("%q: no wake word found", c.text)
			continue
		}
		if mt.Rest != c.rest {
			t.Errorf("%q: rest %q, want %q", c.text, mt.Rest, c.rest)
		}
	}
	for _, c := range negatives {
		if mt, ok := m.Find(c); ok {
			t.Errorf("%q: false wake word %+v", c, mt)
		}
	}
	if len(positives) < 40 || len(negatives) < 40 {
		t.Fatalf("table holds %d positives and %d negatives, want at least 40 of each", len(positives), len(negatives))
	}
}

// FuzzFind: a match lies within the text, Rest is the text after it, and
// the edit distance is within the budget.
func FuzzFind(f *testing.F) {
	for _, s := range []string{"Hey MitHub, what is next?", "밋허브야 일정", "헤이밋허브 요약해줘", "GitHub", "\xff미트허브\xfe, 뭐야?"} {
		f.Add(s)
	}
	m := MustDefault()
	f.Fuzz(func(t *testing.T, text string) {
		mt, ok := m.Find(text)
		if !ok {
			return
		}
		if mt.Start < 0 || mt.Start >= mt.End || mt.End > len(text) {
			t.Fatalf("Find(%q): span %d..%d", text, mt.Start, mt.End)
		}
		if !strings.Contains(text[mt.End:], mt.Rest) || mt.Distance < 0 || mt.Distance > DefaultMaxEdits {
			t.Fatalf("Find(%q) = %+v", text, mt)
		}
	})
}

// TestEditBudget: edits beyond the budget and consonant edits never match.
func TestEditBudget(t *testing.T) {
	strict, err := New(Config{MaxEdits: 0})
	if err != nil {
		t.Fatal(err)
	}
	if strict.Contains("Hey Mithab, what is next?") {
		t.Error("a vowel edit matched with a budget of 0")
	}
	if !strict.Contains("Hey Mithub, what is next?") {
		t.Error("the exact name did not match with a budget of 0")
	}
	loose, err := New(Config{MaxEdits: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Hey GitHub, what is next?", "hey mid hub what is next", "헤이 깃허브 뭐야", "헤이 미트볼 뭐야"} {
		if loose.Contains(s) {
			t.Errorf("%q matched with a budget of 5: a consonant was edited", s)
		}
	}
	if _, err := New(Config{MaxEdits: 6}); err == nil {
		t.Error("max edits 6 accepted")
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{EnvWords: "hey 코다리, Jarvis", EnvMaxEdits: "0"}
	m, err := FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Names(); len(got) != 2 {
		t.Fatalf("names %q", got)
	}
	for _, s := range []string{"코다리야 일정 알려줘", "헤이 코다리 뭐야?", "Jarvis, what is next?", "OK jarvis what is next"} {
		if !m.Contains(s) {
			t.Errorf("%q: configured name not found", s)
		}
	}
	if m.Contains("MitHub, what is next?") {
		t.Error("a default name matched although MITHUB_WAKE_WORDS replaced them")
	}
	env[EnvMaxEdits] = "two"
	if _, err := FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err == nil || !strings.Contains(err.Error(), EnvMaxEdits) {
		t.Errorf("bad %s: err %v", EnvMaxEdits, err)
	}
}

// TestMatchOffsets: Start and End bound the wake phrase in the original
// text, prefix included.
func TestMatchOffsets(t *testing.T) {
	text := "So. Hey Mit Hub, when?"
	mt, ok := MustDefault().Find(text)
	if !ok {
		t.Fatal("no match")
	}
	if got := text[mt.Start:mt.End]; got != "Hey Mit Hub" {
		t.Errorf("matched %q, want %q", got, "Hey Mit Hub")
	}
	if mt.How != ByPrefix {
		t.Errorf("how %q", mt.How)
	}
}

// TestQMSumCorpus: no turn of QMSum train and val addresses the bot.
func TestQMSumCorpus(t *testing.T) {
	dir := qmsumtest.Dir(t)
	m := MustDefault()
	checked, files := 0, 0
	for _, split := range []string{"train", "val"} {
		paths, err := filepath.Glob(filepath.Join(dir, split, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) == 0 {
			t.Fatalf("no meetings in %s", filepath.Join(dir, split))
		}
		for _, p := range paths {
			mt, err := qmsum.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for i, turn := range mt.Turns {
				checked++
				if w, ok := m.Find(turn.Content); ok {
					t.Errorf("%s turn %d triggers (%+v): %q", mt.Name, i, w, turn.Content)
				}
			}
		}
	}
	t.Logf("QMSum train+val: %d meetings, %d turns checked, none triggers", files, checked)
}
