package qmsumtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
)

// TestDirPresent: with MITHUB_QMSUM_DIR naming a directory, Dir returns it
// and Files lists the split's meetings.
func TestDirPresent(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "val"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "val", "A.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MITHUB_QMSUM_DIR", dir)
	if got := qmsumtest.Dir(t); got != dir {
		t.Errorf("Dir = %q, want %q", got, dir)
	}
	if got := qmsumtest.Files(t, "val"); len(got) != 1 || filepath.Base(got[0]) != "A.json" {
		t.Errorf("Files(val) = %v, want [.../val/A.json]", got)
	}
}

// TestDirAbsent runs helperAbsent in a child process with the data
// directory missing: it skips, and fails under MITHUB_REQUIRE_DATA=1.
func TestDirAbsent(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	for _, tc := range []struct {
		require  string
		wantFail bool
		want     string
	}{
		{"", false, "--- SKIP: TestHelperAbsent"},
		{"0", false, "--- SKIP: TestHelperAbsent"},
		{"1", true, "--- FAIL: TestHelperAbsent"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAbsent$", "-test.v")
		cmd.Env = append(os.Environ(), "MITHUB_QMSUM_HELPER=1", "MITHUB_QMSUM_DIR="+missing, "MITHUB_REQUIRE_DATA="+tc.require)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != tc.wantFail {
			t.Errorf("MITHUB_REQUIRE_DATA=%q: failed = %v, want %v\n%s", tc.require, failed, tc.wantFail, out)
		}
		if !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), "MITHUB_QMSUM_DIR") {
			t.Errorf("MITHUB_REQUIRE_DATA=%q: output lacks %q or the variable's name:\n%s", tc.require, tc.want, out)
		}
		if strings.Contains(string(out), "reached after Dir") {
			t.Errorf("MITHUB_REQUIRE_DATA=%q: the test went on after Dir:\n%s", tc.require, out)
		}
	}
}

// TestHelperAbsent is TestDirAbsent's child.
func TestHelperAbsent(t *testing.T) {
	if os.Getenv("MITHUB_QMSUM_HELPER") != "1" {
		t.Skip("run by TestDirAbsent")
	}
	qmsumtest.Dir(t)
	t.Log("reached after Dir")
}

// TestOptionalAbsent: without the data, Optional lets the test go on
// (false), and fails it under MITHUB_REQUIRE_DATA=1.
func TestOptionalAbsent(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	for _, require := range []string{"", "1"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOptional$", "-test.v")
		cmd.Env = append(os.Environ(), "MITHUB_QMSUM_HELPER=1", "MITHUB_QMSUM_DIR="+missing, "MITHUB_REQUIRE_DATA="+require)
		out, err := cmd.CombinedOutput()
		wantFail := require == "1"
		if failed := err != nil; failed != wantFail {
			t.Errorf("MITHUB_REQUIRE_DATA=%q: failed = %v, want %v\n%s", require, failed, wantFail, out)
		}
		if went := strings.Contains(string(out), "went on without the data"); went == wantFail {
			t.Errorf("MITHUB_REQUIRE_DATA=%q: went on = %v, want %v\n%s", require, went, !wantFail, out)
		}
	}
}

// TestHelperOptional is TestOptionalAbsent's child.
func TestHelperOptional(t *testing.T) {
	if os.Getenv("MITHUB_QMSUM_HELPER") != "1" {
		t.Skip("run by TestOptionalAbsent")
	}
	if _, ok := qmsumtest.Optional(t); !ok {
		t.Log("went on without the data")
	}
}
