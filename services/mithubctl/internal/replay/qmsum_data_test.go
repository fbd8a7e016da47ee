package replay

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
)

// qmsumDir returns the QMSum data directory; the data ships beside the
// repository, so its absence fails the test.
func qmsumDir(t *testing.T) string {
	t.Helper()
	dir := qmsumtest.Dir(t)
	return dir
}

func TestRunBed002(t *testing.T) {
	path := filepath.Join(qmsumDir(t), "val", "Bed002.json")
	api, client := newFakeAPI(t)
	var out bytes.Buffer

	if _, err := run(t.Context(), client, Options{File: path, Progress: &out}, noTicks(t), false); err != nil {
		t.Fatal(err)
	}
	sizes := api.batchSizes()
	ids := api.segmentIDs()
	// 533 turns, three of them without text.
	if len(sizes) != 11 || sizes[10] != 30 || len(ids) != 530 || ids[0] != "bed002-00000" || ids[529] != "bed002-00532" {
		t.Errorf("batches %v, %d ids from %s to %s", sizes, len(ids), ids[0], ids[len(ids)-1])
	}
	if api.creates[0].Title != "Bed002" || api.creates[0].RoomName != "replay-Bed002" {
		t.Errorf("create = %+v", api.creates[0])
	}
	if !strings.Contains(out.String(), "530/530 100%") || !strings.Contains(out.String(), "530 inserted, 0 duplicates") {
		t.Errorf("output:\n%s", out.String())
	}
}
