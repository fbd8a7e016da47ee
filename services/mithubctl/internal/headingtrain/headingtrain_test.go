package headingtrain

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/services/mithubctl/internal/modelfile"
)

// A topic's example holds the spoken turns of its spans; a turn without
// text keeps its index, so the spans still fit.
func TestExamplesTakeTheTurnsOfTheSpans(t *testing.T) {
	meeting := `{"meeting_transcripts": [
		{"speaker": "A", "content": "The budget is late."},
		{"speaker": "B", "content": "  "},
		{"speaker": "B", "content": "The budget needs a review."},
		{"speaker": "A", "content": "Now the prototype."},
		{"speaker": "B", "content": "The prototype is blue."}],
		"topic_list": [
			{"topic": "Budget", "relevant_text_span": [["0", "2"]]},
			{"topic": "Prototype", "relevant_text_span": [["3", "4"]]}],
		"specific_query_list": [], "general_query_list": []}`
	path := filepath.Join(t.TempDir(), "m.json")
	if err := os.WriteFile(path, []byte(meeting), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := qmsum.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ex := Examples(m)
	if len(ex) != 2 || ex[0].Name != "Budget" || ex[1].Name != "Prototype" {
		t.Fatalf("examples %+v", ex)
	}
	var texts []string
	for _, tr := range ex[0].Turns {
		texts = append(texts, tr.Text)
	}
	if len(texts) != 2 || texts[0] != "The budget is late." || texts[1] != "The budget needs a review." {
		t.Errorf("budget turns %q, want the two spoken turns of span 0-2", texts)
	}
	if len(ex[1].Turns) != 2 || ex[1].Turns[1].Text != "The prototype is blue." {
		t.Errorf("prototype turns %+v", ex[1].Turns)
	}
}

// The table in the repository is the one `make train-headings` builds
// from QMSum train.
func TestShippedTableIsRebuilt(t *testing.T) {
	dir := qmsumtest.Dir(t)
	ex, err := Load(t.Context(), filepath.Join(dir, "train"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := modelfile.Marshal(Train(ex, "QMSum train"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../../../pkg/prdoc/headingwords.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("pkg/prdoc/headingwords.json differs from the table learned from %s/train: run make train-headings", dir)
	}
}
