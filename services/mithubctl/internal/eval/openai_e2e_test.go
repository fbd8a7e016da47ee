package eval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/mithubctl/internal/agentapitest"
	"github.com/mithub/mithub/services/mithubctl/internal/eval"
	"github.com/mithub/mithub/services/mithubctl/internal/fakellm"
)

// writeMeeting writes a QMSum-format meeting of two annotated topics
// (turns 0-19 on the budget, 20-39 on hiring) with one specific query on
// each.
func writeMeeting(t *testing.T, dir string) {
	t.Helper()
	type turn struct {
		Speaker string `json:"speaker"`
		Content string `json:"content"`
	}
	var turns []turn
	for i := range 20 {
		turns = append(turns, turn{[]string{"Ann", "Ben"}[i%2], fmt.Sprintf("The marketing budget for quarter %d needs a cut of %d percent on advertising spend.", i%4+1, 5+i)})
	}
	for i := range 20 {
		turns = append(turns, turn{[]string{"Cho", "Dee"}[i%2], fmt.Sprintf("Hiring the backend engineer means interview round %d with the platform team this week.", i+1)})
	}
	m := map[string]any{
		"meeting_transcripts": turns,
		"topic_list": []map[string]any{
			{"topic": "Marketing budget", "relevant_text_span": [][]string{{"0", "19"}}},
			{"topic": "Hiring", "relevant_text_span": [][]string{{"20", "39"}}},
		},
		"specific_query_list": []map[string]any{
			{"query": "What did they say about the advertising budget?", "answer": "They want to cut advertising spend.", "relevant_text_span": [][]string{{"0", "19"}}},
			{"query": "How is the backend engineer being hired?", "answer": "Through interview rounds with the platform team.", "relevant_text_span": [][]string{{"20", "39"}}},
		},
		"general_query_list": []map[string]any{},
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Fixture001.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The evaluation runs end to end against agent-api configured with the
// openai provider (the in-repository fake OpenAI-compatible server): its
// answers come from the model, and the model is asked for segmentation
// and answers.
func TestRunWithTheOpenAIProvider(t *testing.T) {
	llm := fakellm.New(fakellm.ModeOK, 0)
	srv := httptest.NewServer(llm.Handler())
	t.Cleanup(srv.Close)
	dsn, schema := storetest.NewSchema(t)
	url, _ := agentapitest.Start(t, storetest.URLWithSchema(t, dsn, schema),
		"MITHUB_LLM_PROVIDER=openai", "MITHUB_LLM_BASE_URL="+srv.URL+"/v1", "MITHUB_LLM_MODEL=fake-model")
	dir := t.TempDir()
	writeMeeting(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := eval.Run(ctx, apiclient.New(url, "dev-key"), dir, eval.Options{Settle: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Meetings) != 1 || rep.Overall.Queries != 2 {
		t.Fatalf("report of %d meetings, %d queries; want 1 and 2", len(rep.Meetings), rep.Overall.Queries)
	}
	if got := rep.Overall.Providers; got["openai"] != 2 || len(got) != 1 {
		t.Fatalf("answers by provider %v, want both from openai", got)
	}
	for _, a := range rep.Meetings[0].Answers {
		if !strings.Contains(a.Answer, "The meeting covered this") {
			t.Errorf("answer %q is not the model's", a.Answer)
		}
	}
	var stats map[string]int64
	resp, err := srv.Client().Get(srv.URL + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
		t.Fatal(err)
	}
	// Segmentation, summaries and the two answers (with their plans) all
	// went to the model.
	if stats[string(fakellm.ModeOK)] < 4 {
		t.Errorf("the model answered %d requests, want segmentation and answers at least", stats[string(fakellm.ModeOK)])
	}
	var md bytes.Buffer
	rep.Markdown(&md)
	if !strings.Contains(md.String(), "MitHub's answers by provider: openai 2.") {
		t.Errorf("the report does not name the provider:\n%s", md.String())
	}
}
