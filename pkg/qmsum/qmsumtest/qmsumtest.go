// Package qmsumtest gives tests the QMSum data directory, or skips them
// (fails them under MITHUB_REQUIRE_DATA=1) where there is none. Only tests
// import it; production code uses qmsum.DataDir.
package qmsumtest

import (
	"path/filepath"
	"testing"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/testenv"
)

// Dir returns the QMSum data directory (qmsum.DataDir: $MITHUB_QMSUM_DIR,
// else shared/data/qmsum beside the repository). Where it is absent, the
// test skips with a message naming MITHUB_QMSUM_DIR, or fails under
// MITHUB_REQUIRE_DATA=1.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := qmsum.DataDir()
	if err != nil {
		testenv.Missing(tb, "needs the QMSum data: %v", err)
	}
	return dir
}

// Optional returns the QMSum data directory and true, or, where it is
// absent, logs that the test runs without it and returns false (fails the
// test under MITHUB_REQUIRE_DATA=1): for tests with in-repository fixtures
// that add QMSum meetings when they can.
func Optional(tb testing.TB) (string, bool) {
	tb.Helper()
	dir, err := qmsum.DataDir()
	if err != nil {
		if testenv.Required() {
			tb.Fatalf("needs the QMSum data: %v (%s=1: required)", err, testenv.RequireEnv)
		}
		tb.Logf("without the QMSum data (%v): in-repository fixtures only", err)
		return "", false
	}
	return dir, true
}

// Files returns the QMSum meeting files of split ("train", "val",
// "test"), sorted by name; like Dir, it skips or fails the test where the
// directory is absent, and fails it where the split holds no meeting.
func Files(tb testing.TB, split string) []string {
	tb.Helper()
	dir := Dir(tb)
	files, err := filepath.Glob(filepath.Join(dir, split, "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("QMSum %s: no meeting files in %s (%v)", split, filepath.Join(dir, split), err)
	}
	return files
}
