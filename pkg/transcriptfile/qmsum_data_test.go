package transcriptfile

import (
	"os"
	"testing"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
)

// Every QMSum val meeting streams into the utterances the replay makes of
// it: same speakers, texts and synthesized times.
func TestQMSumValMatchesReplay(t *testing.T) {
	files := qmsumtest.Files(t, "val")
	for _, path := range files {
		m, err := qmsum.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		want := qmsum.Utterances(m, "x")
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadAll(f, QMSum)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d segments, want %d", path, len(got), len(want))
		}
		for i := range got {
			if got[i].Text != want[i].Text || got[i].SpeakerID != want[i].SpeakerID || got[i].StartMS != want[i].StartMS || got[i].EndMS != want[i].EndMS {
				t.Fatalf("%s: segment %d = %+v, want %+v", path, i, got[i], want[i])
			}
		}
	}
	t.Logf("%d val meetings", len(files))
}
