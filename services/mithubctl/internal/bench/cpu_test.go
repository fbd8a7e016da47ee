package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// A name with a space and a parenthesis; utime 250, stime 30 ticks.
	line := "4242 (agent-api) x) S 1 4242 4242 0 -1 4194560 5021 0 0 0 250 30 0 0 20 0 9 0 1234 0 0\n"
	name, cpu, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if name != "agent-api) x" || cpu != 280*clockTick {
		t.Fatalf("parseStat = %q, %v; want \"agent-api) x\", %v", name, cpu, 280*clockTick)
	}
	for _, bad := range []string{"", "12 no-name S 1", "12 (short) S 1 2 3", "12 (neg) S 1 2 3 4 5 6 7 8 9 10 -1 3 0"} {
		if _, _, err := parseStat(bad); err == nil {
			t.Errorf("parseStat(%q) = nil error", bad)
		}
	}
}

func TestCPUByNameSumsProcessesOfAName(t *testing.T) {
	proc := t.TempDir()
	stat := func(pid, name string, utime, stime string) {
		dir := filepath.Join(proc, pid)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		line := pid + " (" + name + ") S 1 1 1 0 -1 0 0 0 0 0 " + utime + " " + stime + " 0 0 20 0 1 0 1 0 0\n"
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stat("10", "postgres", "100", "50")
	stat("11", "postgres", "7", "3")
	stat("12", "agent-api", "40", "2")
	stat("13", "other", "999", "999")
	got := cpuByName(proc, nil, "postgres", "agent-api", "mithub-lab")
	want := map[string]time.Duration{"postgres": 160 * clockTick, "agent-api": 42 * clockTick, "mithub-lab": 0}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if _, ok := got["other"]; ok {
		t.Error("a process not asked for was counted")
	}
	// Pinned to a pid, a name counts that process only.
	stat("14", "agent-api", "500", "500")
	if got := cpuByName(proc, map[string]int{"agent-api": 12}, "agent-api")["agent-api"]; got != 42*clockTick {
		t.Errorf("agent-api pinned to pid 12 = %v, want %v", got, 42*clockTick)
	}
	if got := cpuByName(proc, nil, "agent-api")["agent-api"]; got != 1042*clockTick {
		t.Errorf("agent-api unpinned = %v, want %v", got, 1042*clockTick)
	}
	if cpuByName(filepath.Join(proc, "missing"), nil, "postgres") != nil {
		t.Error("no /proc should give nil")
	}

	var buf bytes.Buffer
	after := map[string]time.Duration{"postgres": 160*clockTick + 100*time.Millisecond, "agent-api": 42*clockTick + 300*time.Millisecond, "mithub-lab": 0}
	writeCPUPerAsk(&buf, []string{"agent-api", "postgres", "mithub-lab"}, got, after, 100, time.Second)
	if !strings.Contains(buf.String(), "agent-api 3.00 ms, postgres 1.00 ms, mithub-lab 0.00 ms; all 4.00 ms") {
		t.Errorf("report %q", buf.String())
	}
}
