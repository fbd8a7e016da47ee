package cli

import (
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/apiclient"
)

func TestPrintCitations(t *testing.T) {
	var b strings.Builder
	res := apiclient.AskResult{
		Answer: "Kim said the budget is frozen [3].", Provider: "local", ContextTokens: 812, ThreadID: "t-1",
		Citations: []apiclient.Citation{
			{N: 3, Seq: 41, SpeakerName: "김민수", Time: "12:05", Text: "예산은\n동결합니다.", LowConfidence: true},
			{N: 7, Seq: 58, SpeakerID: "bob", Time: "15:40", Text: "Agreed."},
		},
		Warnings: []string{"Some cited turns have low transcription confidence: [3]"},
	}
	if err := printCitations(&b, res); err != nil {
		t.Fatal(err)
	}
	want := "\n\nsources:\n" +
		"  [3] 12:05 김민수, turn 41 (low transcription confidence): 예산은 동결합니다.\n" +
		"  [7] 15:40 bob, turn 58: Agreed.\n" +
		"warning: Some cited turns have low transcription confidence: [3]\n" +
		"\n(local provider, 812 context tokens, thread t-1)\n"
	if got := b.String(); got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

func TestParseAsk(t *testing.T) {
	env := func(string) string { return "" }
	tests := []struct {
		name    string
		give    []string
		wantErr string
		wantQ   string
	}{
		{"question", []string{"--meeting", "m1", "--api-key", "k", "--question", " 그건 누가 맡아? "}, "", "그건 누가 맡아?"},
		{"catch up", []string{"--meeting", "m1", "--api-key", "k", "--catch-up", "--since-ms", "60000"}, "", ""},
		{"no meeting", []string{"--api-key", "k", "--question", "why?"}, "--meeting is required", ""},
		{"no question", []string{"--meeting", "m1", "--api-key", "k"}, "--question is required", ""},
		{"since without catch-up", []string{"--meeting", "m1", "--api-key", "k", "--since-ms", "5", "--question", "q"}, "--since-ms goes with --catch-up", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseAsk(tt.give, env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || c.Question != tt.wantQ {
				t.Fatalf("question %q, err %v; want %q", c.Question, err, tt.wantQ)
			}
		})
	}
}

func TestPrintPR(t *testing.T) {
	var b strings.Builder
	if err := printPR(&b, apiclient.PR{ID: "p-1", Status: apiclient.PRSucceeded, Markdown: "# Weekly\n\n## Decisions\n- ship"}); err != nil {
		t.Fatal(err)
	}
	if want := "# Weekly\n\n## Decisions\n- ship\n(PR p-1, succeeded)\n"; b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
	err := printPR(&b, apiclient.PR{ID: "p-2", Status: apiclient.PRFailed, Attempts: 3, Error: "meeting has no transcript"})
	if err == nil || !strings.Contains(err.Error(), "meeting has no transcript") {
		t.Fatalf("failed PR: %v", err)
	}
}
