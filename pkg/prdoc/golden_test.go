package prdoc_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/internal/golden"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/tokens"
)

// goldenMeeting is a short bilingual meeting with two topics, small
// enough to be one map part.
func goldenMeeting() prdoc.Input {
	return prdoc.Input{MeetingID: "m-golden", MeetingTitle: "Launch sync", Date: wednesday, Turns: turns(
		"Alice: Let's look at the launch date first.",
		"Bob: QA needs one more week, so the 24th is too early.",
		"Alice: Then we move the launch to March 3. Agreed?",
		"민수: 네, 좋습니다. 제가 금요일까지 공지 초안을 쓰겠습니다.",
		"Bob: Next, the load test.",
		"Alice: We need the big cluster for two days.",
		"Alice: I'll book the load-test cluster.",
		"Bob: Who signs off on the pricing page?",
	), Topics: []prdoc.Topic{{ID: "t-1", Title: "Launch date", StartSeq: 0, EndSeq: 3}, {ID: "t-2", Title: "Load test", StartSeq: 4, EndSeq: 7}}}
}

// Each recorded map reply (valid JSON, fenced in prose, truncated, wrong
// types, Korean, out-of-range seqs, nothing found, a refusal) becomes the
// decisions, action items and open questions in its golden file.
func TestLLMRepliesGolden(t *testing.T) {
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range golden.Files(t, "testdata/replies", ".txt") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			reply, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var cs chatServer
			url := cs.start(t, counter, func(string) (int, string) { return http.StatusOK, string(reply) })
			d, err := newLLM(t, url, counter, 8000).Extract(context.Background(), goldenMeeting())
			if err != nil {
				t.Fatal(err)
			}
			if len(cs.users) != 1 {
				t.Fatalf("%d map requests, want 1", len(cs.users))
			}
			golden.CheckJSON(t, strings.TrimSuffix(path, ".txt")+".golden.json", struct {
				Decisions     []prdoc.Decision     `json:"decisions"`
				ActionItems   []prdoc.ActionItem   `json:"action_items"`
				OpenQuestions []prdoc.OpenQuestion `json:"open_questions"`
				Provider      string               `json:"provider"`
			}{d.Decisions, d.ActionItems, d.OpenQuestions, d.Provider})
		})
	}
}

// The map prompt is pinned: a change shows up as a diff of
// testdata/prompts/map.txt to review.
func TestLLMPromptGolden(t *testing.T) {
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	var cs chatServer
	url := cs.start(t, counter, func(string) (int, string) { return http.StatusOK, "{}" })
	if _, err := newLLM(t, url, counter, 8000).Extract(context.Background(), goldenMeeting()); err != nil {
		t.Fatal(err)
	}
	if len(cs.users) != 1 {
		t.Fatalf("%d map requests, want 1", len(cs.users))
	}
	golden.Check(t, "testdata/prompts/map.txt", []byte("=== system\n"+cs.systems[0]+"\n=== user\n"+cs.users[0]+"\n"))
}
