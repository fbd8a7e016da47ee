package load

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoadCorpusMeetingFile: a .jsonl meeting supplies every turn and its
// annotations' questions; without annotations the questions fall back to
// one generic question.
func TestLoadCorpusMeetingFile(t *testing.T) {
	const example = "../../../../examples/meetings/launch-review.jsonl"
	c, err := loadCorpus("", example, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.meetings) != 1 {
		t.Fatalf("%d meetings, want 1", len(c.meetings))
	}
	m := c.meetings[0]
	if len(m.utts) != 272 || m.utts[0].SpeakerName != "김지현" {
		t.Errorf("%d turns, first by %q; want 272, first by 김지현", len(m.utts), m.utts[0].SpeakerName)
	}
	if len(m.questions) != 5 || m.questions[0] != "What crash-free rate must both platforms reach before the rollout goes beyond 25 percent?" {
		t.Errorf("questions = %q, want the annotations' five", m.questions)
	}
	if got := c.utterance(0, 272, "p"); got.Text != m.utts[0].Text || got.StartMS <= m.utts[271].EndMS {
		t.Errorf("utterance 272 = %q at %d ms, want the first turn again after %d ms", got.Text, got.StartMS, m.utts[271].EndMS)
	}

	bare := filepath.Join(t.TempDir(), "bare.jsonl")
	if err := os.WriteFile(bare, []byte(`{"speaker_name":"A","text":"hello","start_ms":0,"end_ms":500}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err = loadCorpus("", bare, -1)
	if err != nil {
		t.Fatal(err)
	}
	if q := c.meetings[0].questions; len(q) != 1 || q[0] != "What did the team decide?" {
		t.Errorf("questions without annotations = %q", q)
	}
	if _, err := loadCorpus(t.TempDir(), "", -1); err == nil {
		t.Error("a directory without val meetings: no error")
	}
}
