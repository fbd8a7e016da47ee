package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of utime and stime in /proc/<pid>/stat (USER_HZ,
// 100 on every Linux architecture Go supports).
const clockTick = 10 * time.Millisecond

// cpuByName sums the user and system CPU time of the processes whose
// command name is one of names, read from /proc; for a name in pinned,
// only the process with that pid counts (other work on the machine may run
// processes of the same name). It returns nil where there is no /proc. A
// process that exits between two readings drops out of the later one, so
// a difference is a lower bound.
func cpuByName(proc string, pinned map[string]int, names ...string) map[string]time.Duration {
	dirs, err := filepath.Glob(filepath.Join(proc, "[0-9]*", "stat"))
	if err != nil || len(dirs) == 0 {
		return nil
	}
	out := make(map[string]time.Duration, len(names))
	for _, n := range names {
		out[n] = 0
	}
	for _, path := range dirs {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		name, cpu, err := parseStat(string(raw))
		if err != nil {
			continue
		}
		if pid, ok := pinned[name]; ok && filepath.Base(filepath.Dir(path)) != strconv.Itoa(pid) {
			continue
		}
		if _, ok := out[name]; ok {
			out[name] += cpu
		}
	}
	return out
}

// parseStat reads the command name and utime+stime of a /proc/<pid>/stat
// line. The name is in parentheses and may itself hold spaces or ")".
func parseStat(line string) (string, time.Duration, error) {
	open, shut := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || shut < open {
		return "", 0, fmt.Errorf("stat line without a command name")
	}
	// After the name: state is field 3; utime and stime are fields 14, 15.
	f := strings.Fields(line[shut+1:])
	if len(f) < 13 {
		return "", 0, fmt.Errorf("stat line has %d fields after the name, want at least 13", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return "", 0, fmt.Errorf("stat cpu field %q", s)
		}
		ticks += n
	}
	return line[open+1 : shut], time.Duration(ticks) * clockTick, nil
}

// writeCPUPerAsk reports CPU time per ask of each named process group
// between two readings; nothing when either is missing.
func writeCPUPerAsk(w io.Writer, names []string, before, after map[string]time.Duration, asks int, elapsed time.Duration) {
	if before == nil || after == nil || asks == 0 {
		return
	}
	var parts []string
	var total time.Duration
	for _, n := range names {
		d := after[n] - before[n]
		total += d
		parts = append(parts, fmt.Sprintf("%s %.2f ms", n, float64(d.Microseconds())/1000/float64(asks)))
	}
	fmt.Fprintf(w, "\nCPU per ask (user+system, from /proc): %s; all %.2f ms, %.0f%% of this machine's cores over the run\n",
		strings.Join(parts, ", "), float64(total.Microseconds())/1000/float64(asks),
		100*total.Seconds()/(elapsed.Seconds()*float64(runtime.NumCPU())))
}
