package qmsum

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exampleDir holds the meetings written for the repository
// (examples/meetings/README.md describes their format).
const exampleDir = "../../examples/meetings"

// exampleAnnotations is the annotation file's format.
type exampleAnnotations struct {
	Meeting    string   `json:"meeting"`
	Title      string   `json:"title"`
	Date       string   `json:"date"`
	DurationMS int64    `json:"duration_ms"`
	Languages  []string `json:"languages"`
	TurnIndex  string   `json:"turn_index"`
	Speakers   []struct {
		SpeakerID   string `json:"speaker_id"`
		SpeakerName string `json:"speaker_name"`
		Role        string `json:"role"`
	} `json:"speakers"`
	Topics []struct {
		Topic string `json:"topic"`
		Span  [2]int `json:"span"`
	} `json:"topics"`
	Questions []struct {
		Query       string `json:"query"`
		Answer      string `json:"answer"`
		AnswerTurns []int  `json:"answer_turns"`
	} `json:"questions"`
	Decisions []struct {
		Decision string `json:"decision"`
		Turns    []int  `json:"turns"`
	} `json:"decisions"`
	ActionItems []struct {
		Owner string `json:"owner"`
		Item  string `json:"item"`
		Due   string `json:"due"`
		Turns []int  `json:"turns"`
	} `json:"action_items"`
	OpenQuestions []struct {
		Question string `json:"question"`
		Turns    []int  `json:"turns"`
	} `json:"open_questions"`
}

// TestExampleMeetings checks every example meeting: the transcript parses
// as JSONL with growing times, and its annotations only point at turns that
// exist and say what they should (topics tile the meeting, owners are
// speakers, due dates are dates not before the meeting).
func TestExampleMeetings(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(exampleDir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no example meetings in %s", exampleDir)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		t.Run(name, func(t *testing.T) {
			utts, err := LoadJSONL(file, name)
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(utts); i++ {
				if utts[i].StartMS < utts[i-1].StartMS {
					t.Errorf("turn %d starts at %d ms, before turn %d (%d ms)", i, utts[i].StartMS, i-1, utts[i-1].StartMS)
				}
			}
			b, err := os.ReadFile(strings.TrimSuffix(file, ".jsonl") + ".annotations.json")
			if err != nil {
				t.Fatal(err)
			}
			var a exampleAnnotations
			dec := json.NewDecoder(strings.NewReader(string(b)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&a); err != nil {
				t.Fatalf("annotations: %v", err)
			}
			speakers := make(map[string]bool)
			for _, u := range utts {
				speakers[u.SpeakerName] = true
			}
			checkExampleAnnotations(t, &a, len(utts), utts[len(utts)-1].EndMS, speakers)
		})
	}
}

func checkExampleAnnotations(t *testing.T, a *exampleAnnotations, n int, endMS int64, speakers map[string]bool) {
	t.Helper()
	date, err := time.Parse(time.DateOnly, a.Date)
	if err != nil {
		t.Errorf("date: %v", err)
	}
	if a.Meeting == "" || a.Title == "" || len(a.Languages) == 0 {
		t.Errorf("meeting %q, title %q, languages %v: all required", a.Meeting, a.Title, a.Languages)
	}
	if a.DurationMS != endMS {
		t.Errorf("duration_ms = %d, the last turn ends at %d", a.DurationMS, endMS)
	}
	if len(a.Speakers) != len(speakers) {
		t.Errorf("%d speakers annotated, %d speak", len(a.Speakers), len(speakers))
	}
	for _, s := range a.Speakers {
		if !speakers[s.SpeakerName] {
			t.Errorf("speaker %q never speaks", s.SpeakerName)
		}
	}
	// Topics tile the meeting: the first starts at turn 0, each starts
	// right after the previous one and the last ends at the last turn.
	next := 0
	for _, tp := range a.Topics {
		if tp.Topic == "" || tp.Span[0] != next || tp.Span[1] < tp.Span[0] {
			t.Errorf("topic %q spans %v, want a named span starting at turn %d", tp.Topic, tp.Span, next)
		}
		next = tp.Span[1] + 1
	}
	if next != n {
		t.Errorf("topics end at turn %d, the meeting at %d", next-1, n-1)
	}
	turns := func(what string, ts []int) {
		if len(ts) == 0 {
			t.Errorf("%s: no turns", what)
		}
		for _, i := range ts {
			if i < 0 || i >= n {
				t.Errorf("%s: turn %d outside 0..%d", what, i, n-1)
			}
		}
	}
	if len(a.Questions) == 0 || len(a.Decisions) == 0 || len(a.ActionItems) == 0 {
		t.Errorf("%d questions, %d decisions, %d action items: want some of each", len(a.Questions), len(a.Decisions), len(a.ActionItems))
	}
	for _, q := range a.Questions {
		if q.Query == "" || q.Answer == "" {
			t.Errorf("question %q: query and answer are required", q.Query)
		}
		turns("question "+q.Query, q.AnswerTurns)
	}
	for _, d := range a.Decisions {
		turns("decision "+d.Decision, d.Turns)
	}
	for _, ai := range a.ActionItems {
		if !speakers[ai.Owner] {
			t.Errorf("action item %q: owner %q is not a speaker", ai.Item, ai.Owner)
		}
		due, err := time.Parse(time.DateOnly, ai.Due)
		if err != nil || due.Before(date) {
			t.Errorf("action item %q: due %q, want a date not before %s", ai.Item, ai.Due, a.Date)
		}
		turns("action item "+ai.Item, ai.Turns)
	}
	for _, o := range a.OpenQuestions {
		turns("open question "+o.Question, o.Turns)
	}
}
